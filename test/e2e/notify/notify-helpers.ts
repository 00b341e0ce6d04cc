import {existsSync, readFileSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {shellPlan} from '../../helpers/run-cli.js'
import {logged} from '../../helpers/agent-log.js'

/** An agent that asks until it has an answer (counted in `log`). */
export const asking = (log: string): string =>
  logged(log, `printf 'RESULT: QUESTION\\nQuestion: Which store should %s use?\\nContext: none\\nOptions:\\n1. Redis\\n2. SQLite\\n' "$MDPLAN_AGENT"`)

/** The notify block of the front matter: a webhook from MDPLAN_TEST_HOOK with an Authorization header from MDPLAN_TEST_TOKEN. */
export const hookTarget = (events?: string): string =>
  ['notify:', '  - webhook_env: MDPLAN_TEST_HOOK', '    headers_env: {Authorization: MDPLAN_TEST_TOKEN}', ...(events ? [`    events: ${events}`] : [])].join('\n')

export interface NotifyProject {
  repo: TempRepo
  plan: string
  /** The agents' own log (outside the repository). */
  log: string
  /** A folder outside the repository for the test's files. */
  scratch: string
  cleanup(): Promise<void>
}

/** A git repository with `plan.md` committed: shell agents made by `agents(log)`, `front` in the front matter. */
export async function notifyProject(agents: (log: string) => Parameters<typeof shellPlan>[0], front: string | ((scratch: string) => string)): Promise<NotifyProject> {
  const scratch = await mkdtemp(join(tmpdir(), 'mdplan-notify-'))
  const log = join(scratch, 'agents.log')
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents(log), {frontMatter: typeof front === 'string' ? front : front(scratch)})})
  return {repo, plan: join(repo.root, 'plan.md'), log, scratch, cleanup: async () => (await repo.cleanup(), await rm(scratch, {recursive: true, force: true}))}
}

export interface Settled {
  id: string
  target: string
  outcome: string
  tries: number
}

/** The plan's outbox (the ids queued) and delivery log, as the next run reads them. */
export function notifyFiles(repo: TempRepo): {queued: string[]; settled: Settled[]} {
  const folder = join(repo.root, '.mdplan', 'notify', 'plan')
  const lines = (name: string): string[] => (existsSync(join(folder, name)) ? readFileSync(join(folder, name), 'utf8').split('\n').filter(Boolean) : [])
  return {queued: lines('outbox.ndjson').map((line) => (JSON.parse(line) as {event: {id: string}}).event.id), settled: lines('delivered.ndjson').map((line) => JSON.parse(line) as Settled)}
}

/** For a test file: git's own config isolated, and what each test pushes here undone after it (last first). */
export function notifyTestFile(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = []
  beforeAll(isolateGitConfig)
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return cleanups
}
