import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {planView} from '../../../src/serve/plan-view.js'
import {checkRequest} from '../../../src/serve/check-request.js'
import {rowEdit, rowEditsFor} from '../../../src/serve/row-edit.js'
import {plainText} from '../../../src/serve/read-log-chunk.js'
import {emptyRow} from '../../../src/store/table-state.js'

const plan = `---
runner: shell
---

# Parallel Plan: view

## Agents

### A: asks
- **depends_on**: []
- **prompt**: |
    echo <script>alert(1)</script>

### B: fails
- **depends_on**: []
- **runner**: codex
- **prompt**: |
    x

### C: after
- **depends_on**: [A, B]
- **prompt**: |
    y

### D: done
- **depends_on**: []
- **prompt**: |
    z

## Open Questions

### A: Which <b>db</b>?

**Options:**

1. sqlite
2. <img src=x onerror=alert(1)>

- **answer**:

## Execution State

| Agent | Status | Agent ID | Duration | Notes |
|-------|--------|----------|----------|-------|
| A | needs_input | sh-1 | 1s | question: Which <b>db</b>? |
| B | failed | sh-2 | 1s | attempt 1: exit 3; attempt 2: exit 4\\; badly |
| C | pending | — | — | blocked by: A (needs input), B (failed) |
| D | completed | sh-4 | 2s | job: h1 mdplan-x |
`

describe('the page view of a plan', () => {
  const view = planView(parsePlan(plan, 'plan.md'), 'plan.md', {attempts: new Map([['A', 1], ['D', 2]]), since: new Map([['A', 5]])})

  it('has one row per agent: status, rank (needs you first), runner, attempt, the question or failure in one line', () => {
    const rows = Object.fromEntries(view.agents.map((agent) => [agent.id, agent]))
    expect(rows.A).toMatchObject({status: 'needs_input', rank: 0, runner: 'shell', attempt: 1, line: 'Which <b>db</b>?', since: 5, edits: ['requeue', 'skip']})
    expect(rows.B).toMatchObject({status: 'failed', rank: 0, runner: 'codex', attempt: 2, line: 'exit 4; badly', edits: ['requeue', 'retry', 'skip']})
    expect(rows.C).toMatchObject({status: 'pending', rank: 2, attempt: 0, dependsOn: ['A', 'B'], edits: ['skip']})
    expect(rows.D).toMatchObject({status: 'completed', rank: 3, attempt: 2, job: 'h1 mdplan-x', edits: ['requeue']})
    expect(view.counts).toEqual({needs_input: 1, failed: 1, pending: 1, completed: 1})
  })

  it('carries questions and their options as the plan has them (text: the page inserts it as text)', () => {
    expect(view.questions).toEqual([{agent: 'A', question: 'Which <b>db</b>?', context: '', options: ['sqlite', '<img src=x onerror=alert(1)>']}])
    expect(view.shape).toBe('A<\nB<\nC<A,B\nD<')
  })
})

describe('the hand edits as buttons', () => {
  const row = (status: 'pending' | 'in_progress' | 'completed' | 'failed' | 'needs_input', held?: string) => ({...emptyRow(), status, notes: 'attempt 1: x', ...(held === undefined ? {} : {held})})

  it('re-queue and retry set Status to pending, skip to completed, and no other cell changes', () => {
    expect(rowEdit(row('failed'), 'retry')).toEqual({...row('failed'), status: 'pending'})
    expect(rowEdit(row('completed'), 'requeue')).toEqual({...row('completed'), status: 'pending'})
    expect(rowEdit(row('pending'), 'skip')).toEqual({...row('pending'), status: 'completed'})
    expect(rowEdit(row('pending', 'skipped'), 'requeue')).toEqual({...row('pending'), status: 'pending'})
  })

  it('a running row, a retry of what did not fail, and an edit that changes nothing are none', () => {
    expect(rowEditsFor(row('in_progress'))).toEqual([])
    expect(rowEdit(row('completed'), 'retry')).toBeUndefined()
    expect(rowEdit(row('completed'), 'skip')).toBeUndefined()
    expect(rowEdit(row('pending'), 'requeue')).toBeUndefined()
  })
})

describe('request checks', () => {
  const local = {hosts: new Set(['127.0.0.1:8123', 'localhost:8123'])}
  const post = {method: 'POST', host: '127.0.0.1:8123', origin: 'http://127.0.0.1:8123'}

  it('serves reads and same-origin writes on 127.0.0.1 without a token', () => {
    expect(checkRequest({method: 'GET', host: 'localhost:8123'}, local)).toEqual({ok: true})
    expect(checkRequest(post, local)).toEqual({ok: true})
    expect(checkRequest({...post, fetchSite: 'same-origin'}, local)).toEqual({ok: true})
  })

  it('refuses a foreign Host (DNS rebinding), a foreign or missing Origin, and a cross-site fetch', () => {
    expect(checkRequest({method: 'GET', host: 'evil.example:8123'}, local)).toMatchObject({ok: false, status: 421})
    expect(checkRequest({...post, origin: 'http://evil.example'}, local)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({...post, origin: 'http://127.0.0.1:9999'}, local)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({...post, origin: 'null'}, local)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({method: 'POST', host: post.host}, local)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({...post, fetchSite: 'cross-site'}, local)).toMatchObject({ok: false, status: 403})
  })

  it('with a token: every request needs it, but the page code; a write with it still needs the same origin', () => {
    const remote = {token: 's3cret'}
    const lan = {method: 'POST', host: '192.168.1.9:8123', origin: 'http://192.168.1.9:8123'}
    expect(checkRequest({method: 'GET', host: '192.168.1.9:8123'}, remote)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({method: 'GET', host: '192.168.1.9:8123', token: 's3cre'}, remote)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({method: 'GET', host: '192.168.1.9:8123', token: 's3cret'}, remote)).toEqual({ok: true})
    expect(checkRequest({method: 'GET', host: '192.168.1.9:8123', asset: true}, remote)).toEqual({ok: true})
    expect(checkRequest({...lan, asset: true}, remote)).toMatchObject({ok: false, status: 403})
    expect(checkRequest({...lan, token: 's3cret'}, remote)).toEqual({ok: true})
    expect(checkRequest({...lan, token: 's3cret', origin: 'http://evil.example'}, remote)).toMatchObject({ok: false, status: 403})
  })
})

describe('log text', () => {
  it('loses terminal escapes and control characters, keeps markup as characters', () => {
    expect(plainText('\u001b[31mred\u001b[0m <script>x</script>\u001b]0;title\u0007\tok\r\n\u0000')).toBe('red <script>x</script>\tok\n')
  })
})
