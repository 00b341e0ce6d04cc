import {mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog, readEvents} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

/** An agent that asks until it has an answer, then writes the answer it got to `answers`. */
function asker(log: string, answers: string, id: string): string {
  return logged(
    log,
    [
      'if [ -z "$MDPLAN_ANSWER" ]; then',
      `  printf 'RESULT: QUESTION\\nQuestion: Which store should ${id} use?\\nContext: none named\\nOptions:\\n1. Redis\\n2. SQLite\\n'`,
      'else',
      `  printf '%s %s\\n' "$MDPLAN_AGENT" "$(printf '%s' "$MDPLAN_ANSWER" | tr '\\n' ' ')" >> '${answers}'`,
      '  sleep 0.1',
      'fi'
    ].join('\n')
  )
}

/** The `### ID:` entries under `## Open Questions`, in order (the section runs to the next `## `). */
function openQuestionEntries(text: string): string[] {
  const start = text.indexOf('\n## Open Questions')
  if (start === -1) return []
  const rest = text.slice(start + 1)
  const end = rest.slice(3).search(/\n## /)
  const section = end === -1 ? rest : rest.slice(0, end + 3)
  return [...section.matchAll(/^### ([A-Za-z][\w.-]*):/gm)].map((match) => match[1]!)
}

async function expectValid(plan: string, cwd: string, when: string) {
  const validate = await runCli(['validate', plan], {cwd})
  expect(validate.exitCode, `${when}: ${validate.all}`).toBe(0)
  expect((await readFile(plan, 'utf8')).match(/^## Execution State/gm), when).toHaveLength(1)
}

describe('several questions in one run, answered, resumed (git repository)', () => {
  for (const [askers, table] of [
    [2, false],
    [3, true]
  ] as const) {
    it(`${askers} agents ask at once${table ? ' in a plan that already has a state table' : ''}: every question kept once, every answer delivered once`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mdplan-e2e-q-'))
      const log = join(dir, 'agents.log')
      const answers = join(dir, 'answers.log')
      const ids = ['Q1', 'Q2', 'Q3'].slice(0, askers)
      const agents: Record<string, {deps?: string[]; script: string}> = {}
      for (const id of ids) agents[id] = {script: asker(log, answers, id)}
      agents.P = {script: logged(log, 'sleep 0.2')}
      agents.D = {deps: ['Q1'], script: logged(log, 'true')}
      const repo = await tempRepo()
      await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: 'concurrency: 4', table})})
      const plan = join(repo.root, 'plan.md')

      const first = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(first.exitCode, first.all).toBe(1)
      const firstRun = await readAgentLog(log)
      const firstLines = firstRun.lines.length
      const firstEvents = readEvents(first.stdout)
      expect(firstEvents.types.filter((type) => type === 'question')).toHaveLength(askers)
      await expectValid(plan, repo.root, 'after the run that asked')
      let {rows, text} = await readTable(plan)
      for (const id of ids) expect(rows[id]!.status).toBe('needs_input')
      expect(rows.P!.status).toBe('completed')
      expect(rows.D!.status).toBe('pending')
      expect(openQuestionEntries(text).sort()).toEqual(ids)
      for (const id of ids) expect(text).toContain(`Which store should ${id} use?`)

      for (const [index, id] of ids.entries()) {
        const answered = await runCli(['answer', plan, id, String((index % 2) + 1)], {cwd: repo.root})
        expect(answered.exitCode, answered.all).toBe(0)
        await expectValid(plan, repo.root, `after answering ${id}`)
        text = (await readTable(plan)).text
        expect(openQuestionEntries(text).sort()).toEqual(ids)
      }

      const second = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(second.exitCode, second.all).toBe(0)
      await expectValid(plan, repo.root, 'after the resumed run')
      ;({rows, text} = await readTable(plan))
      expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed')).toEqual([])
      expect(openQuestionEntries(text).sort()).toEqual(ids)

      // From the agents' side, run by run: each attempt once. An answered question resumes the same attempt
      // (a question is not a failure), so each asker starts once per run with attempt 1; P and D once in all.
      const runs = [firstRun, await readAgentLog(log, firstLines)]
      for (const [run, side] of runs.entries()) {
        expect(duplicates(side), `run ${run + 1}:\n${side.lines.join('\n')}`).toEqual([])
        expect(side.unfinished).toEqual([])
        expect(side.peak).toBeLessThanOrEqual(4)
      }
      expect([...firstRun.starts.keys()].sort()).toEqual([...ids.map((id) => `${id}#1`), 'P#1'].sort())
      expect([...runs[1]!.starts.keys()].sort()).toEqual([...ids.map((id) => `${id}#1`), 'D#1'].sort())
      const got = (await readFile(answers, 'utf8')).trim().split('\n').sort()
      expect(got).toHaveLength(askers)
      // Each agent gets its own answer (the shell runner passes the answer as written: `1`, `2`).
      for (const [index, id] of ids.entries()) expect(got.find((line) => line.startsWith(`${id} `))).toMatch(new RegExp(`^${id} (${(index % 2) + 1}|.*${index % 2 === 0 ? 'Redis' : 'SQLite'})`))
      const secondEvents = readEvents(second.stdout)
      expect([...secondEvents.launched.values()].every((count) => count === 1)).toBe(true)
      expect(secondEvents.peak).toBeLessThanOrEqual(4)
      await repo.cleanup()
    }, 60_000)
  }
})
