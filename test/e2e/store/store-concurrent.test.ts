import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'
import {copyFixture, random} from '../../helpers/store-fixture.js'
import {transpileSources} from '../../helpers/store-transpile.js'

const helpers = path.resolve('test/helpers')
let root: string

beforeAll(() => {
  root = transpileSources()
})
afterAll(() => {
  fs.rmSync(root, {recursive: true, force: true})
})

function run(args: string[]): {child: ReturnType<typeof spawn>; output: Promise<string>; ready: Promise<void>} {
  const child = spawn(process.execPath, args, {stdio: ['ignore', 'pipe', 'inherit']})
  let output = ''
  let onReady: () => void
  const ready = new Promise<void>((resolve) => (onReady = resolve))
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    if (output.includes('ready\n')) onReady()
  })
  return {child, ready, output: new Promise((resolve) => child.on('exit', () => resolve(output)))}
}

describe('a person edits the file from another process while the store writes', () => {
  it('loses none of their edits', async () => {
    const file = copyFixture('ten-agents')
    const store = await PlanStore.open(file)
    const mine = ['A', 'B', 'C', 'D', 'E']
    const running = new Set(mine)
    let state = store.state
    const editor = run([path.join(helpers, 'store-editor.mjs'), file, '200', '42'])
    let done = false
    void editor.output.then(() => (done = true))
    let n = 0
    let humanEdits = 0
    while (!done) {
      n++
      for (const agent of mine) {
        const row = state.rows.get(agent)!
        row.status = 'in_progress'
        row.duration = `${n}s`
      }
      const result = await store.write(state, {running})
      humanEdits += result.humanEdits.length
      state = result.state
      await new Promise((resolve) => setImmediate(resolve))
    }
    const expected = JSON.parse(await editor.output) as {journal: string[]; notes: Record<string, string>; status: Record<string, string>}
    // One more write after the person is done: it merges their last edit.
    state = (await store.write(state, {running})).state

    const text = fs.readFileSync(file, 'utf8')
    const read = tableStateFromPlan(parsePlan(text, file))
    for (const line of expected.journal) expect(text).toContain(`\n${line}\n`)
    for (const [agent, notes] of Object.entries(expected.notes)) expect(read.rows.get(agent)!.notes).toBe(notes)
    for (const [agent, status] of Object.entries(expected.status)) expect(read.rows.get(agent)!.status).toBe(status)
    for (const agent of mine) expect(read.rows.get(agent)!.duration).toBe(`${n}s`)
    expect(n).toBeGreaterThan(20)
    expect(humanEdits).toBeGreaterThan(0)
  }, 60_000)
})

describe('a writer killed (SIGKILL) at random instants', () => {
  it('always leaves a plan that parses, holding one whole table: the old or the new', async () => {
    const file = copyFixture('ten-agents')
    const next = random(7)
    const seen = new Set<string>()
    for (let round = 0; round < 30; round++) {
      const writer = run([path.join(helpers, 'store-writer.mjs'), root, file, `r${round}`])
      await writer.ready
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 40)))
      writer.child.kill('SIGKILL')
      await writer.output

      const text = fs.readFileSync(file, 'utf8')
      const plan = parsePlan(text, file)
      expect(plan.messages.filter((message) => message.severity === 'error')).toEqual([])
      expect(plan.agents.map((agent) => agent.id)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'])
      const rows = [...tableStateFromPlan(plan).rows.values()]
      expect(plan.state!.table!.rows.length).toBe(10)
      // One write's table: every row carries the same tag, status and duration.
      const tags = new Set(rows.map((row) => `${row.notes} ${row.status} ${row.duration}`))
      expect(tags.size).toBe(1)
      const [tag] = [...tags]
      expect(tag).toMatch(new RegExp(`^r${round}-(\\d+) (in_progress|completed) \\1s$`))
      seen.add(tag!)
      expect(text.startsWith(fs.readFileSync(path.resolve('fixtures/store/ten-agents/plan.md'), 'utf8').split('## Execution State')[0]!)).toBe(true)

      // Whatever temp file the kill left behind, the next open removes it.
      await PlanStore.open(file)
      expect(fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith('.mdplan-tmp'))).toEqual([])
    }
    expect(seen.size).toBe(30)
  }, 120_000)
})
