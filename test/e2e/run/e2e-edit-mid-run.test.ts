import {mkdtemp, readFile, rename, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog, readEvents} from '../../helpers/agent-log.js'
import {liveEvents} from '../../helpers/live-events.js'
import {liveRun} from '../../helpers/live-run.js'

beforeAll(isolateGitConfig)
// A run a failed expectation leaves waiting for `go` is ended as Ctrl-C ends it, and its repository removed.
const session = liveRun()

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

/** Save the plan the way an editor does: whole new text to a temp file, then rename over. */
async function editorSave(plan: string, edit: (text: string) => string) {
  const text = await readFile(plan, 'utf8')
  const next = edit(text)
  expect(next).not.toBe(text)
  await writeFile(`${plan}.swp-save`, next)
  await rename(`${plan}.swp-save`, plan)
}

/**
 * A runs until the test lets it go (the `go` file beside the log), so the edit always lands while A runs and
 * B waits: a fixed sleep in A raced the edit on a loaded machine (B launched with the old prompt).
 */
async function setup() {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-e2e-log-')), 'agents.log')
  const go = join(log, '..', 'go')
  const agents = {
    A: {creates: ['out/A.txt'], script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\nmkdir -p out\necho A > out/A.txt`)},
    B: {deps: ['A'], creates: ['out/B.txt'], script: logged(log, 'mkdir -p out\necho old-prompt > out/B.txt')},
    C: {deps: ['B'], creates: ['out/C.txt'], script: logged(log, 'mkdir -p out\necho C > out/C.txt')}
  }
  const repo = await tempRepo()
  session.repo = repo
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: 'concurrency: 2'})})
  return {repo, log, plan: join(repo.root, 'plan.md'), go: () => writeFile(go, '')}
}

// `right after a write`: the save lands within one poll of mdplan's last write for A's launch (its `base:`), before
// its next write; `between writes`: half a second later, with no write of mdplan's near it (A waits for the test
// either way). Not before that `base:` write: a save landing in the instant between a write's check and its rename
// is replaced (README, "One instant is left").
const moments = [
  {when: 'saved right after one of mdplan\'s writes', delayMs: 0},
  {when: 'saved between writes', delayMs: 500}
]

describe.each(moments)('the plan edited while it runs (git repository), $when', ({delayMs}) => {
  it('runs an agent added mid-run before the run exits, once', async () => {
    const {repo, log, plan, go} = await setup()
    const run = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    session.live = run
    const events = liveEvents(run)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    const added = ['### N: added-mid-run', '- **depends_on**: [A]', '- **creates**: [`out/N.txt`]', '- **prompt**: |', ...logged(log, 'mkdir -p out\necho N > out/N.txt').split('\n').map((line) => `    ${line}`), '', '']
    const seen = events.until((e) => e.type === 'warning' && /^plan edited: N added/.test(e.message ?? ''), 'the edit that adds N', 20_000)
    await editorSave(plan, (text) => text.replace('## Execution State', `${added.join('\n')}## Execution State`))
    // The run has read the edit while A still runs: N is part of the plan it finishes.
    await seen
    await go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    const side = await readAgentLog(log)
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect(rows.N?.status, result.all).toBe('completed')
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1', 'N#1'])
    expect(await repo.read('out/N.txt')).toBe('N\n')
    expect(side.peak).toBeLessThanOrEqual(2)
    expect(readEvents(result.stdout).peak).toBeLessThanOrEqual(2)
    const validate = await runCli(['validate', plan], {cwd: repo.root})
    expect(validate.exitCode, validate.all).toBe(0)
  }, 30_000)

  it('runs a pending agent as edited when its prompt changes mid-run', async () => {
    const {repo, log, plan, go} = await setup()
    const run = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    session.live = run
    const events = liveEvents(run)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    const seen = events.until((e) => e.type === 'warning' && /^plan edited: B changed before launch/.test(e.message ?? ''), "the edit of B's prompt", 20_000)
    await editorSave(plan, (text) => text.replace('echo old-prompt > out/B.txt', 'echo edited-prompt > out/B.txt'))
    await seen
    await go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect(await repo.read('out/B.txt')).toBe('edited-prompt\n')
    const side = await readAgentLog(log)
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1'])
    const {rows} = await readTable(plan)
    expect(Object.values(rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    const validate = await runCli(['validate', plan], {cwd: repo.root})
    expect(validate.exitCode, validate.all).toBe(0)
  }, 30_000)
})
