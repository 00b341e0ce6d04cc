import {describe, expect, it} from 'vitest'
import {actionableLine} from '../../../src/protocol/actionable-line.js'

// gemini-cli 0.61's words with no auth method (exit 41), as observed with an empty HOME.
const gemini =
  'not authenticated (exit 41): Please set an Auth method in your /tmp/tmp.Q4Ep5551xZ/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA'

describe('actionableLine', () => {
  it('keeps the variables to set where a plain cut at 160 loses them', () => {
    expect(gemini.length).toBeGreaterThan(160)
    expect(gemini.slice(0, 160)).not.toContain('GEMINI_API_KEY')
    const line = actionableLine(gemini, 160)
    expect(line.length).toBeLessThanOrEqual(160)
    expect(line).toMatch(/^not authenticated \(exit 41\): Please set an Auth method/)
    for (const name of ['GEMINI_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA']) expect(line).toContain(name)
    expect(line).toContain('…')
  })

  it('keeps the command to run and the variable in a long preflight message', () => {
    const text =
      'agent A (claude runner): claude refuses the permission mode "bypassPermissions" when running as root (`--dangerously-skip-permissions cannot be used with root/sudo privileges`): run mdplan as a normal user, choose acceptEdits, or set IS_SANDBOX=1 inside a sandbox'
    const line = actionableLine(text, 160)
    expect(line.length).toBeLessThanOrEqual(160)
    expect(line).toContain('IS_SANDBOX=1')
  })

  it('leaves a short message alone, whitespace folded', () => {
    expect(actionableLine('timed out after 1m 00s;\n  codex: waiting for network (Reconnecting 5/5)')).toBe(
      'timed out after 1m 00s; codex: waiting for network (Reconnecting 5/5)'
    )
  })

  it('cuts a long message with nothing actionable like a plain cut', () => {
    const line = actionableLine('word '.repeat(100), 50)
    expect(line).toBe(`${'word '.repeat(10).slice(0, 49).trimEnd()}…`)
  })

  it('never exceeds the limit, whatever the text', () => {
    const samples = [gemini, `${'x'.repeat(300)} GEMINI_API_KEY`, `A_B `.repeat(80), `run \`${'y'.repeat(200)}\``, gemini.repeat(3)]
    for (const text of samples) for (const max of [40, 80, 120, 160]) expect(actionableLine(text, max).length).toBeLessThanOrEqual(max)
  })
})
