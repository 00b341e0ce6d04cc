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
import type {JobLedger} from './job-ledger.js'
import {localHostName, localHostSpec} from './host-spec.js'
import {setTimeout as sleep} from 'node:timers/promises'

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
   * handled (their names cannot say whose they are, so only the run that handled one removes it). On every
   * host that may hold one (the ledger's, and `hosts`), except a host known not to answer: its leftovers stay
   * in the ledger, for the next run or `mdplan clean` (what it says of them comes back).
   */
  sweep(keep: ReadonlySet<string>, hosts: Iterable<string>): Promise<string[]>
  /**
   * One copy of an agent at a time: before a new key of an agent (`job.key`, which names the agent) is submitted anywhere, every earlier
   * job of it is ended and confirmed gone, on every host that holds one (what the ledger knows, and this
   * machine's jobs), except the earlier job whose folder it goes on in (`work`). A host that does not answer is
   * waited for up to its lease (the job's own host: its submit needs it anyway), as a live run waits before it
   * calls a host lost; past that, its job is taken as lost with it, and ended once it answers. Resolves to why
   * the key must not be submitted (its own host stayed silent for its lease), or undefined.
   */
  fence(job: {host: string; key: string; work?: string}, signal?: AbortSignal): Promise<string | undefined>
  /** Whether a host answered the last time it was asked (hosts never asked: true). */
  answers(name: string): boolean
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
  /** The hosts that may hold this plan's jobs (src/hosts/job-ledger.ts): written before each submit, read by every sweep. */
  ledger: JobLedger
  /** Hosts that do not answer, since when (ms): shared with setup-hosts.ts, which finds some before the run (kept current here). */
  down?: Map<string, number>
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
  const {ledger} = input
  /** A host the plan no longer declares is reached as it was when a job went there. */
  const specOf = (name: string): HostSpec | undefined => {
    const declared = input.specs.get(name)
    return declared && declared.type !== 'local' ? declared : ledger.spec(name)
  }
  const host = (name: string): Host => {
    let found = hosts.get(name)
    if (!found) {
      const spec = specOf(name)
      if (!spec || spec.type === 'local') throw new Error(`not a remote host: ${name}`)
      hosts.set(name, (found = createHost(spec, {root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})))
    }
    return found
  }
  const here = createHost(localHostSpec, {root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})
  /** Hosts that did not answer, since when (ms): a sweep passes them by, a fence waits for them only up to their lease. */
  const silent = input.down ?? new Map<string, number>()
  const heard = (name: string): void => void silent.delete(name)
  const unheard = (name: string, since = Date.now()): void => void (silent.has(name) || silent.set(name, since))
  const leaseOf = (name: string): number => specOf(name)?.leaseMs ?? 0
  /** Keys whose job this run saw end (a result, a stop, a job gone): nothing of theirs runs, only their folders wait for the sweep. */
  const ended = new Set<string>()
  /** Keys a reaper is ending already (cancelWhenBack): one per key. */
  const reaping = new Set<string>()
  const reap = (name: string, key: string): void => {
    if (reaping.has(key) || specOf(name)?.type === 'slurm') return
    reaping.add(key)
    reapers.push(
      cancelWhenBack(host(name), key, ending.signal).then(() => {
        reaping.delete(key)
        if (!ending.signal.aborted) ledger.gone(name, [key])
      })
    )
  }

  const runtime: HostRuntime = {
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
          const spec = specOf(job.host)
          // Written down before anything is submitted: a run killed right after still finds the host to sweep.
          if (spec) ledger.submitting(spec, job.key)
          const fenced = await runtime.fence(job, io.signal)
          if (io.signal?.aborted) return {timedOut: false, interrupted: true, stdout: '', stderr: '', spawnFailed: false}
          if (fenced) {
            lost = fenced
            return {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false, lost: true, error: fenced}
          }
          const result = await host(job.host).run(
            {key: job.key, ...io, git: {root, base, branch, prefix, message: commitMessage(title, agent)}, reattach: job.reattach, ...(job.work ? {work: job.work} : {})},
            command
          )
          lost = result.lost === true ? result.error || `host lost: ${job.host}` : undefined
          notStarted = result.notStarted === true ? result.error || `the job ${job.key} never started on ${job.host}` : undefined
          if (lost) unheard(job.host, Date.now() - leaseOf(job.host))
          else if (!result.interrupted) heard(job.host)
          // Ended on its host (or stopped there, or never there): a later fence has nothing of it to end.
          if (!lost && !io.signal?.aborted) ended.add(job.key)
          // Not on Slurm: a job it counts as ended (NODE_FAIL) cannot be cancelled there, and removing its folder under a
          // zombie only leaves its script waiting for ever; the sweep takes it once the run ends, as before.
          if (lost) reap(job.host, job.key)
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
        [...new Set([...ledger.pending(), ...names])].map(async (name) => {
          if (!specOf(name)) return
          // A host already known not to answer is not waited for: what it holds stays in the ledger.
          if (silent.has(name)) {
            const left = ledger.keys(name).filter((key) => !keep.has(key))
            if (left.length > 0) messages.push(`host ${name} does not answer: ${left.length === 1 ? 'a job' : `${left.length} jobs`} of this plan stay${left.length === 1 ? 's' : ''} there (${left.join(', ')}) until a run or \`mdplan clean\` reaches it`)
            return
          }
          const at = new Date().toISOString()
          const listed = await host(name).list(ownPrefix)
          if (!listed) {
            unheard(name)
            const left = ledger.keys(name).filter((key) => !keep.has(key))
            if (left.length > 0) messages.push(`host ${name} did not answer: ${left.length === 1 ? 'a job' : `${left.length} jobs`} of this plan stay${left.length === 1 ? 's' : ''} there (${left.join(', ')}) until a run or \`mdplan clean\` reaches it`)
            return
          }
          heard(name)
          const handled = [...older].filter(([, on]) => on === name).map(([key]) => key)
          const gone = [...new Set([...listed.filter(own), ...handled])].filter((key) => !keep.has(key))
          if (gone.length === 0) return ledger.listed(name, listed.filter(own), at)
          const removed = await host(name).cancel(gone)
          for (const key of gone) older.delete(key)
          // What is left: the listing less what the host confirmed removing, else as it says once the removal is done
          // (a host that went away meanwhile keeps them all).
          const after = removed === true ? listed.filter((key) => !gone.includes(key)) : await host(name).list(ownPrefix)
          if (after) ledger.listed(name, after.filter(own), at)
        })
      )
      return messages
    },

    async fence(job, signal) {
      const mine = (key: string): boolean => key !== job.key && key !== job.work && !ended.has(key) && own(key) && parseJobKey(key)?.agent === parseJobKey(job.key)?.agent
      // This machine's jobs of the agent (the local engine fences its own launches the same way).
      if (job.host !== localHostName) {
        const locals = ((await here.list(ownPrefix).catch(() => [])) ?? []).filter(mine)
        if (locals.length > 0) await here.cancel(locals)
      }
      let refused: string | undefined
      const started = Date.now()
      const holders = ledger.names().filter((name) => name !== localHostName && specOf(name) !== undefined && ledger.keys(name).some(mine))
      await Promise.all(
        holders.map(async (name) => {
          for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
            const keys = ledger.keys(name).filter(mine)
            if (keys.length === 0 || signal?.aborted) return
            const since = silent.get(name)
            // Silent past its lease (or not ending them within it), and not where this job goes: its jobs are taken
            // as lost with it, and ended once it answers (the next run's sweep, or `mdplan clean`, if not in this run).
            const over = (since !== undefined && Date.now() - since >= leaseOf(name)) || Date.now() - started >= leaseOf(name)
            if (name !== job.host && over) {
              for (const key of keys) reap(name, key)
              return
            }
            // The job's own host: the earlier job must go first, and its submit waits for the host anyway, up to the lease.
            if (name === job.host && Date.now() - started >= leaseOf(name)) {
              refused = `host lost: ${name}`
              return
            }
            const removed = await host(name).cancel(keys)
            const left = removed === true ? [] : await host(name).list(ownPrefix)
            if (left) {
              heard(name)
              const gone = keys.filter((key) => !left.includes(key))
              ledger.gone(name, gone)
              if (gone.length === keys.length) return
            } else unheard(name)
            await sleep(wait, undefined, {signal}).catch(() => undefined)
          }
        })
      )
      return refused
    },

    answers: (name) => !silent.has(name),

    async close() {
      ending.abort()
      // Closing the hosts stops what their reapers still ask (a host that does not answer is not waited for).
      await Promise.all([...hosts.values()].map((h) => h.close()))
      await Promise.all(reapers)
    }
  }
  return runtime
}
