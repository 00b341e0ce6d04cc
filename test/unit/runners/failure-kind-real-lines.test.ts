import {describe, expect, it} from 'vitest'
import {failureKind} from '../../../src/runners/failure-kind.js'

// Lines the real clients printed against the scripted model server (npm run test:clis).
describe('failureKind on what the real clients print', () => {
  it.each([
    // gemini 0.61.0, a stream cut mid-answer: its result event, and the cause in its stderr.
    ['[API Error: terminated]', 'transient'],
    ['Error when talking to Gemini API … TypeError: terminated\n  [cause]: SocketError: other side closed\n    code: \'UND_ERR_SOCKET\',', 'transient'],
    // codex 0.169.0 against a provider that answers 401.
    ['unexpected status 401 Unauthorized: invalid x-api-key, url: http://127.0.0.1:41899/v1/responses', 'config']
  ])('%s → %s', (text, kind) => {
    expect(failureKind(text)).toBe(kind)
  })
})
