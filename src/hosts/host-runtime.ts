import type {Agent, Plan} from '../plan/types.js'
import type {JobRef, Host} from './host.js'
import type {CompletionGit, LaunchGit} from '../git/git-guard.js'
import type {SpawnResult, HostCommand} from '../process/process-types.js'
import {attributeChanges} from '../git/attribute-changes.js'
import {commitMessage} from '../git/commit-message.js'
import {formatScopeNote} from '../git/format-scope-note.js'
import {gitMutex} from '../git/git-mutex.js'
import {headSha, shortSha} from '../git/head-sha.js'
import {identityArgs} from '../git/identity-args.js'
import {mergeBranch} from '../git/merge-branch.js'
import {ownershipMap} from '../git/ownership-map.js'
import {runGit, splitNul} from '../git/run-git.js'
import {worktreeNames} from '../layout/worktree-names.js'
import type {HostSpec} from './host-spec.js'
import {createHost} from './host-types.js'
import {hostFilesFolder, jobsFolder} from '../layout/jobs-folder.js'
import {jobKeyPrefix, parseJobKey} from './job-key.js'
import {cancelWhenBack} from './cancel-when-back.js'

/** The remote side of one run: each remote attempt's base, job and result. */
export interface HostRuntime {
  host: (name: string) => Host
  /** Fix the attempt's base commit (a rerun's recorded `base:`, else HEAD after its dependencies' merges). */
  prepare(agent: Agent, job: JobRef, notes: string): Promise<LaunchGit>
  /**
   * A runner's command, run as the attempt's job; `lost()` says why its host lost it (silent past the lease, a
   * worker gone), if it did; `notStarted()` why its job never started the agent (ended, confirmed), if it did not.
   */
  attach(
    agent: Agent,
    job: JobRef,
    io: {logFile: string; timeoutMs?: number; signal?: AbortSignal; onNotes?: (notes: Record<string, string | undefined>) => void}
  ): {run: (command: HostCommand) => Promise<SpawnResult>; lost: () => string | undefined; notStarted: () => string | undefined}
  /** Fetch the result, check its scope, merge it: the same rules as a worktree's. */
  check(agent: Agent, job: JobRef, succeeded: boolean): Promise<CompletionGit>
  /**
   * Remove this plan's jobs no `in_progress` row names (collected results, lost attempts' leftovers, ending
   * what still runs): the keys of its own prefix, never another plan's, and the older-form keys this run
   * handled (their names cannot say whose they are, so only the run that handled one removes it).
   */
  sweep(keep: ReadonlySet<string>, hosts: Iterable<string>): Promise<string[]>
  close(): Promise<void>
}

export function createHostRuntime(input: {
  plan: Plan
  /** The plan file (its local jobs' folder is beside it). */
  file: string
  specs: ReadonlyMap<string, HostSpec>
  root: string
  prefix: string
  slug: string
  /** The plan's key space on shared hosts (jobSpace): its slug and its repository. */
  space: string
  strictScope: boolean
  commits: (agent: Agent) => boolean
}): HostRuntime {
  const {root, prefix, slug} = input
  const hosts = new Map<string, Host>()
  const bases = new Map<string, string>()
  const ownPrefix = jobKeyPrefix(input.space)
  // The prefix names the slug with its length: a key that begins with it is this plan's (another plan's never does).
  const own = (key: string): boolean => key.startsWith(ownPrefix) && parseJobKey(key) !== undefined
  /** Keys of the older form (`mdplan-<slug>-…`) this run attached to, by host: its rows named them, so they are this plan's. */
  const older = new Map<string, string>()
  const owners = ownershipMap(input.plan, prefix)
  const title = input.plan.title ?? slug
  // Read once: every merge of the run commits as the same person.
  const identity = identityArgs(root)
  // Lost attempts' jobs, ended once their hosts answer again, for as long as the run lasts.
  const ending = new AbortController()
  const reapers: Array<Promise<void>> = []
  const host = (name: string): Host => {
    let found = hosts.get(name)
    if (!found) {
      const spec = input.specs.get(name)
      if (!spec || spec.type === 'local') throw new Error(`not a remote host: ${name}`)
      hosts.set(name, (found = createHost(spec, {root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})))
    }
    return found
  }

  return {
    host,

    async prepare(agent, job, notes) {
      // A job that goes on in an earlier job's folder goes on from that job's base, as a rerun of the same job does.
      const recorded = job.reattach || job.work ? /(?:^|;\s*)base:\s*([0-9a-f]{4,40})/.exec(notes)?.[1] : undefined
      const resolved = recorded ? (await runGit(root, ['rev-parse', '--verify', '--quiet', `${recorded}^{commit}`])).stdout.trim() : undefined
      const base = resolved || (await headSha(root))
      if (!base) return {cwd: root, notes: {}, warnings: [], error: 'git: the repository has no commit yet to send to a host'}
      bases.set(job.key, base)
      if (!own(job.key)) older.set(job.key, job.host)
      const spec = input.specs.get(job.host)
      return {cwd: `${job.host}:${spec?.dir ?? '~/.mdplan'}/jobs/${job.work ?? job.key}/work/${prefix}`, notes: {base: shortSha(base)}, warnings: []}
    },

    attach(agent, job, io) {
      let lost: string | undefined
      let notStarted: string | undefined
      const {branch} = worktreeNames(root, slug, agent.id)
      return {
        lost: () => lost,
        notStarted: () => notStarted,
        run: async (command) => {
          const base = bases.get(job.key) ?? (await headSha(root)) ?? ''
          const result = await host(job.host).run(
            {key: job.key, ...io, git: {root, base, branch, prefix, message: commitMessage(title, agent)}, reattach: job.reattach, ...(job.work ? {work: job.work} : {})},
            command
          )
          lost = result.lost === true ? result.error || `host lost: ${job.host}` : undefined
          notStarted = result.notStarted === true ? result.error || `the job ${job.key} never started on ${job.host}` : undefined
          // Not on Slurm: a job it counts as ended (NODE_FAIL) cannot be cancelled there, and removing its folder under a
          // zombie only leaves its script waiting for ever; the sweep takes it once the run ends, as before.
          if (lost && input.specs.get(job.host)?.type !== 'slurm') reapers.push(cancelWhenBack(host(job.host), job.key, ending.signal))
          return result
        }
      }
    },

    async check(agent, job, succeeded) {
      const notes: Record<string, string | undefined> = {}
      const warnings: string[] = []
      if (!succeeded) return {notes, warnings}
      const base = bases.get(job.key)
      const {branch} = worktreeNames(root, slug, agent.id)
      if (!base) return {notes, warnings, fail: `no base commit recorded for ${job.key}`}
      const collected = await host(job.host).collect({key: job.key, root, branch, base})
      if (!collected.ok) return {notes, warnings, fail: collected.reason}
      if (!collected.commit) return {notes, warnings}
      // On its own host every change is the agent's: the scope check needs no window, only the diff.
      const diff = await runGit(root, ['diff', '--name-only', '-z', '--no-renames', base, collected.commit])
      const changed = splitNul(diff.stdout).filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length))
      const scope = formatScopeNote(attributeChanges({agent: agent.id, changed, owners, running: [agent.id]}).violations)
      notes.scope = scope
      if (scope && input.strictScope) return {notes, warnings, fail: `scope: ${scope}`}
      const merged = await gitMutex.run(async () =>
        mergeBranch({root, branch, message: commitMessage(title, agent), identity: await identity})
      )
      // The branch is kept on a conflict, so a person can resolve it by hand.
      if (!merged.ok) return {notes, warnings, fail: merged.reason}
      await runGit(root, ['branch', '-D', branch])
      if (input.commits(agent)) notes.commit = shortSha(collected.commit)
      return {notes, warnings}
    },

    async sweep(keep, names) {
      const messages: string[] = []
      await Promise.all(
        [...new Set(names)].map(async (name) => {
          const listed = await host(name).list(ownPrefix)
          if (!listed) return
          const handled = [...older].filter(([, on]) => on === name).map(([key]) => key)
          const gone = [...new Set([...listed.filter(own), ...handled])].filter((key) => !keep.has(key))
          await host(name).cancel(gone)
          for (const key of gone) older.delete(key)
        })
      )
      return messages
    },

    async close() {
      ending.abort()
      await Promise.all(reapers)
      await Promise.all([...hosts.values()].map((h) => h.close()))
    }
  }
}
