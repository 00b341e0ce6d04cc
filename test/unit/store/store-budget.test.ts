import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan, type TableMeta} from '../../../src/store/table-state.js'
import {setFrontMatterBudget} from '../../../src/store/set-front-matter-budget.js'
import type {Budget} from '../../../src/plan/types.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

const body = '\n# Parallel Plan: budgets\n\n## Agents\n\n### A: work\n- **depends_on**: []\n- **prompt**: |\n    Do A.\n'

/** The plan's text with its budget set, and what its front matter then reads as. */
function set(text: string, budget: Budget): {text: string; read: Budget | undefined} {
  const plan = parsePlan(text, 'plan.md')
  const edit = setFrontMatterBudget(plan, budget)
  // The edit says the range it replaced: the text outside it is the old text's.
  expect(edit.text.slice(0, edit.start)).toBe(text.slice(0, edit.start))
  expect(edit.text.slice(edit.start + edit.length)).toBe(text.slice(edit.end))
  return {text: edit.text, read: parsePlan(edit.text, 'plan.md').settings.budget}
}

describe("the front matter's budget, set through the store", () => {
  it('replaces only the value written (a flow mapping, a block one, a bare count), keeping comments and the other keys', () => {
    const flow = `---\nrunner: shell  # ours\nbudget: {tokens: 20M, usd: 50}   # team limit\n---\n${body}`
    expect(set(flow, {tokens: 30_000_000})).toEqual({text: flow.replace('20M', '30M'), read: {tokens: 30_000_000, usd: 50}})
    expect(set(flow, {usd: 75.5}).text).toBe(flow.replace('usd: 50', 'usd: 75.5'))
    const block = `---\nbudget:\n  tokens: 20_000_000\n  usd: 50\nconcurrency: 2\n---\n${body}`
    expect(set(block, {tokens: 1_500})).toEqual({text: block.replace('20_000_000', '1.5k'), read: {tokens: 1_500, usd: 50}})
    const bare = `---\nbudget: 20M\n---\n${body}`
    expect(set(bare, {tokens: 25_000_000}).text).toBe(bare.replace('20M', '25M'))
  })

  it('adds a dimension beside the others, a `budget:` line, or a front matter where there is none', () => {
    const flow = `---\nbudget: {tokens: 20M}\n---\n${body}`
    expect(set(flow, {usd: 60})).toEqual({text: flow.replace('{tokens: 20M}', '{tokens: 20M, usd: 60}'), read: {tokens: 20_000_000, usd: 60}})
    const block = `---\nbudget:\n    tokens: 20M\n---\n${body}`
    expect(set(block, {usd: 60}).text).toBe(block.replace('tokens: 20M\n', 'tokens: 20M\n    usd: 60\n'))
    const bare = `---\nbudget: 20M\n---\n${body}`
    expect(set(bare, {usd: 60})).toEqual({text: bare.replace('budget: 20M', 'budget: {tokens: 20M, usd: 60}'), read: {tokens: 20_000_000, usd: 60}})
    const none = `---\nrunner: shell\n---\n${body}`
    expect(set(none, {tokens: 30_000_000}).text).toBe(none.replace('runner: shell\n', 'runner: shell\nbudget: {tokens: 30M}\n'))
    expect(set(body.slice(1), {tokens: 30_000_000, usd: 5}).text).toBe(`---\nbudget: {tokens: 30M, usd: 5}\n---\n\n${body.slice(1)}`)
    // CRLF stays CRLF.
    const crlf = `---\r\nrunner: shell\r\n---\r\n${body.replace(/\n/g, '\r\n')}`
    expect(set(crlf, {tokens: 1_234_567})).toEqual({text: crlf.replace('runner: shell\r\n', 'runner: shell\r\nbudget: {tokens: 1234567}\r\n'), read: {tokens: 1_234_567}})
  })

  it('is one edit through the store: only those bytes change on disk', async () => {
    const file = copyFixture('basic')
    const before = fs.readFileSync(file, 'utf8')
    const store = await PlanStore.open(file, {now: tickingClock()})
    await store.editText((plan) => setFrontMatterBudget(plan, {tokens: 30_000_000}))
    store.close()
    expect(fs.readFileSync(file, 'utf8')).toBe(before.replace('custom_key: kept   # comment\n', 'custom_key: kept   # comment\nbudget: {tokens: 30M}\n'))
  })
})

/** The store's table written with these lines under it; the file's text after. */
async function written(store: PlanStore, meta: Partial<TableMeta>): Promise<string> {
  const state = store.state
  Object.assign(state.meta, meta)
  await store.write(state, {running: new Set()})
  return fs.readFileSync(store.file, 'utf8')
}

describe('the budget line under the table', () => {
  const warn = 'budget: 16.2M of 20M tokens (81 %)'
  const reached = 'budget reached: 20.1M of 20M tokens'

  it('is added after the meta lines, read back, replaced in place, and removed, every other byte kept', async () => {
    const file = copyFixture('basic')
    const original = fs.readFileSync(file, 'utf8')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const wait = 'claude on local: usage limit, resets 2026-11-28T15:00Z'
    const added = await written(store, {budget: warn})
    expect(added).toMatch(/Build: not yet run\nbudget: 16\.2M of 20M tokens \(81 %\)\n$/)
    expect(tableStateFromPlan(parsePlan(added, file)).meta.budget).toBe(warn)
    // Replaced where it stood; a wait line goes after the meta lines, as always.
    const replaced = await written(store, {budget: reached, waits: wait})
    expect(replaced).toContain(`Build: not yet run\n${wait}\n${reached}\n`)
    expect(replaced).not.toContain(warn)
    const removed = await written(store, {budget: '', waits: ''})
    store.close()
    const stampless = (t: string): string => t.replace(/^(Last updated|Started): .*$/gm, '$1:')
    expect(stampless(removed)).toBe(stampless(original))
  })

  it("stays mdplan's through a person's edit of the file: their save with an older line does not bring it back", async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    await written(store, {budget: warn})
    // A person saves an edit of a row (and the line as it was); mdplan's next line stands.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('| C | pending | — | — | |', '| C | pending | — | — | mine |'))
    const text = await written(store, {budget: reached})
    store.close()
    expect(text).toContain('| C | pending | — | — | mine |')
    expect(text).toContain(`\n${reached}\n`)
    expect(text).not.toContain(warn)
  })
})
