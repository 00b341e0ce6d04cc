import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'
import {formatWaitLine, parseWaitLine} from '../../../src/plan/wait-line.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'
import {mergeWaitLines} from '../../../src/store/merge-wait-lines.js'

const claude = 'claude on local: usage limit, resets 2026-11-28T15:00Z'
const codex = 'codex on build1.example.com: rate limit, waits until 2026-11-28T14:03:30Z'

describe('wait lines under the table', () => {
  it('a line reads back as the wait it says, and is written to the minute when exact', () => {
    expect(parseWaitLine(claude)).toEqual({account: 'claude on local', what: 'usage limit', at: Date.parse('2026-11-28T15:00Z'), reset: true})
    expect(parseWaitLine(codex)).toEqual({account: 'codex on build1.example.com', what: 'rate limit', at: Date.parse('2026-11-28T14:03:30Z'), reset: false})
    expect(formatWaitLine(parseWaitLine(claude)!)).toBe(claude)
    expect(formatWaitLine(parseWaitLine(codex)!)).toBe(codex)
    expect(parseWaitLine('Build: not yet run')).toBeUndefined()
    expect(parseWaitLine('claude on local: usage limit, resets tomorrow')).toBeUndefined()
  })

  it('are added after the meta lines, read back, replaced, and removed, every other byte kept', async () => {
    const file = copyFixture('basic')
    const original = fs.readFileSync(file, 'utf8')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.meta.waits = claude
    state = (await store.write(state, {running: new Set()})).state
    let text = fs.readFileSync(file, 'utf8')
    expect(text).toMatch(/Build: not yet run\nclaude on local: usage limit, resets 2026-11-28T15:00Z\n$/)
    expect(tableStateFromPlan(parsePlan(text, file)).meta.waits).toBe(claude)

    // Two accounts; then one; the fast path (nothing edited by hand) splices them in place.
    state.meta.waits = `${claude}\n${codex}`
    state = (await store.write(state, {running: new Set()})).state
    expect(fs.readFileSync(file, 'utf8')).toContain(`Build: not yet run\n${claude}\n${codex}\n`)
    state.meta.waits = codex
    state = (await store.write(state, {running: new Set()})).state
    text = fs.readFileSync(file, 'utf8')
    expect(text).toContain(`Build: not yet run\n${codex}\n`)
    expect(text).not.toContain(claude)

    state.meta.waits = ''
    await store.write(state, {running: new Set()})
    text = fs.readFileSync(file, 'utf8')
    expect(text).not.toContain(' on build1')
    // Only the stamps mdplan owns changed.
    const stampless = (t: string): string => t.replace(/^(Last updated|Started): .*$/gm, '$1:')
    expect(stampless(text)).toBe(stampless(original))
  })

  it('a person deleting a line clears that wait: the merge takes it as their edit', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.meta.waits = `${claude}\n${codex}`
    state = (await store.write(state, {running: new Set()})).state
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`${claude}\n`, ''))
    state.rows.get('A')!.status = 'in_progress'
    const result = await store.write(state, {running: new Set(['A'])})
    expect(result.humanEdits).toContainEqual({agent: '', column: 'Waits', from: `${claude}\n${codex}`, to: codex})
    expect(result.state.meta.waits).toBe(codex)
    expect(fs.readFileSync(file, 'utf8')).not.toContain(claude)
  })

  it('a file with CRLF and no final newline keeps both', async () => {
    const file = copyFixture('crlf-bom-no-final-newline')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    state.meta.waits = claude
    await store.write(state, {running: new Set()})
    const text = fs.readFileSync(file, 'utf8')
    expect(text.endsWith(`Build: not yet run\r\n${claude}`)).toBe(true)
    expect(tableStateFromPlan(parsePlan(text, file)).meta.waits).toBe(claude)
  })

  it('merge account by account: a deleted line stands, unless mdplan recorded a newer limit of that account', () => {
    const later = claude.replace('15:00Z', '20:00Z')
    expect(mergeWaitLines(`${claude}\n${codex}`, `${claude}\n${codex}`, codex)).toEqual({text: codex, edited: true})
    expect(mergeWaitLines(claude, `${later}\n${codex}`, '')).toEqual({text: `${later}\n${codex}`, edited: true})
    expect(mergeWaitLines(claude, claude, claude)).toEqual({text: claude, edited: false})
    expect(mergeWaitLines(undefined, undefined, claude)).toEqual({text: claude, edited: true})
  })
})
