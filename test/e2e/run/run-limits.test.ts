import {readFileSync, writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli} from '../../helpers/run-cli.js'
import {readArgvLog} from '../../helpers/runner-support.js'

/**
 * Usage limits with their reset (docs/limits.md), through the real CLI: the fake claude hits its account's
 * limit once (`usage-limit-once`), saying when it resets; a shell agent is another account and goes on.
 * Launches are counted from the fake's argv log.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const agent = (id: string, extra: string[] = [], prompt = `Do ${id}.`): string[] => [`### ${id}: work`, '- **depends_on**: []', ...extra, '- **prompt**: |', `    ${prompt}`, '']
const plan = (agents: string[][]): string => ['---', 'runner: claude', 'concurrency: 1', '---', '', '# Parallel Plan: limits', '', '## Agents', '', ...agents.flat()].join('\n')

async function fakeClaude(resetInS: number): Promise<{env: Record<string, string>; launches: () => number}> {
  const state = await mkdtemp(join(tmpdir(), 'mdplan-fake-state-'))
  const argvLog = join(state, 'argv.jsonl')
  const env = {
    MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
    FAKE_SCENARIO: 'usage-limit-once',
    FAKE_RESET_IN_S: String(resetInS),
    FAKE_STATE_DIR: state,
    FAKE_ARGV_LOG: argvLog
  }
  return {env, launches: () => readArgvLog(argvLog).filter((line) => line.argv.includes('-p')).length}
}

describe('a usage limit with its reset', () => {
  it('stops claude\'s launches while the shell agent runs, ends with exit 4 saying when, and a rerun honours the recorded wait until a person deletes it', async () => {
    repo = await tempRepo({'plan.md': plan([agent('A'), agent('B'), agent('S', ['- **runner**: shell'], 'echo "RESULT: SUCCESS"')])})
    const file = join(repo.root, 'plan.md')
    const claude = await fakeClaude(3600)
    const first = await runCli(['run', 'plan.md'], {cwd: repo.root, env: claude.env})
    expect(first.exitCode, first.all).toBe(4)
    expect(first.all).toMatch(/usage limit: nothing more can launch before \d{4}-\d\d-\d\dT[\d:]+Z \(claude on local\); run again after/)
    // A hit the limit; B never launched on that account; S, another account, ran.
    expect(claude.launches()).toBe(1)
    let table = await readTable(file)
    expect(table.rows.S!.status).toBe('completed')
    expect(table.rows.A!.status).toBe('pending')
    expect(table.rows.A!.notes).toMatch(/paused: rate or usage limit \(Claude AI usage limit reached\|\d+\), claude on local resets /)
    expect(table.rows.A!.notes).not.toMatch(/attempt 1:/)
    expect(table.rows.B!.status).toBe('pending')
    const line = /^claude on local: usage limit, resets \d{4}-\d\d-\d\dT[\d:]+Z$/m.exec(table.text)?.[0]
    expect(line, table.text).toBeDefined()

    const status = await runCli(['status', 'plan.md'], {cwd: repo.root})
    expect(status.stdout).toContain(`Waiting:       ${line}`)

    // A rerun before the reset launches nothing on claude, and says so again.
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root, env: claude.env})
    expect(again.exitCode, again.all).toBe(4)
    expect(claude.launches()).toBe(1)

    // A person clears the wait by deleting its line: the next run goes on, and A used no attempt.
    writeFileSync(file, readFileSync(file, 'utf8').replace(`${line}\n`, ''))
    const cleared = await runCli(['run', 'plan.md'], {cwd: repo.root, env: claude.env})
    expect(cleared.exitCode, cleared.all).toBe(0)
    expect(claude.launches()).toBe(3)
    table = await readTable(file)
    expect(Object.values(table.rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(table.rows.A!.notes).not.toMatch(/attempt \d+:|paused:/)
    expect(table.text).not.toMatch(/ on local: /)
    // What each attempt used, as claude reported it (100 in, 20 out): A's limited attempt and its completed one.
    expect(table.rows.A!.notes).toMatch(/tokens: 240\b/)
    expect(table.rows.B!.notes).toMatch(/tokens: 120\b/)
    expect((await runCli(['status', 'plan.md'], {cwd: repo.root})).stdout).toMatch(/Spent: +360 tokens/)
  }, 90_000)

  it('--wait-for-reset waits in the foreground for the reset, then resumes the agent without spending an attempt', async () => {
    repo = await tempRepo({'plan.md': plan([agent('A'), agent('B')])})
    const claude = await fakeClaude(2)
    const started = Date.now()
    const result = await runCli(['run', 'plan.md', '--wait-for-reset', '--json'], {cwd: repo.root, env: {...claude.env, MDPLAN_RESET_MARGIN_MS: '0'}})
    expect(result.exitCode, result.all).toBe(0)
    const events = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as {type: string; tokens?: number; account?: string})
    // The breaker's event names the account; each completion says what it used.
    expect(events.find((event) => event.type === 'paused')?.account).toBe('claude on local')
    expect(events.filter((event) => event.type === 'completed').map((event) => event.tokens)).toEqual([120, 120])
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(result.all).toMatch(/no agent can launch before .*claude on local waits for a usage limit to reset; waiting/)
    expect(claude.launches()).toBe(3)
    const table = await readTable(join(repo.root, 'plan.md'))
    expect(table.rows.A!.status).toBe('completed')
    expect(table.rows.A!.notes).not.toMatch(/attempt \d+:/)
    expect(table.text).not.toMatch(/claude on local: /)
  }, 60_000)

  it('a child plan that ends limited (exit 4) holds its agent in the parent without spending an attempt, until the child\'s reset', async () => {
    const parent = ['# Parallel Plan: parent', '', '## Agents', '', '### P: child', '- **depends_on**: []', '- **plan**: child.md', ''].join('\n')
    repo = await tempRepo({'plan.md': parent, 'child.md': plan([agent('A')])})
    const claude = await fakeClaude(3600)
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root, env: claude.env})
    expect(result.exitCode, result.all).toBe(4)
    expect(claude.launches()).toBe(1)
    const child = await readTable(join(repo.root, 'child.md'))
    const reset = /^claude on local: usage limit, resets (\S+)$/m.exec(child.text)?.[1]
    expect(reset, child.text).toBeDefined()
    const table = await readTable(join(repo.root, 'plan.md'))
    expect(table.rows.P!.status).toBe('pending')
    expect(table.rows.P!.notes).not.toMatch(/attempt \d+:/)
    expect(table.text).toContain(`plan on local: usage limit, resets ${reset}`)
  }, 60_000)
})
