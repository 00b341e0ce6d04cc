import type {Agent, Plan} from '../plan/types.js'
import type {JobRef, Host} from './host.js'
import type {CompletionGit, LaunchGit} from '../git/git-guard.js'
import type {SpawnResult, HostCommand} from '../process/process-types.js'
import {identityArgs} from '../git/identity-args.js'
import {ownershipMap} from '../git/ownership-map.js'
import type {HostSpec} from './host-spec.js'
import type {JobLedger} from './job-ledger.js'
import {createRuntimeContext} from './runtime-context.js'
import {prepareRemote} from './prepare-remote.js'
import {attachRemote} from './attach-remote.js'
import {checkRemote} from './check-remote.js'
import {sweepHosts} from './sweep-hosts.js'
import {fenceAgent} from './fence-agent.js'

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
  const owners = ownershipMap(input.plan, input.prefix)
  const title = input.plan.title ?? input.slug
  // Read once: every merge of the run commits as the same person.
  const identity = identityArgs(input.root)
  const context = createRuntimeContext({...input, title})
  const merge = {owners, identity, strictScope: input.strictScope, commits: input.commits}
  const fence: HostRuntime['fence'] = (job, signal) => fenceAgent(context, job, signal)
  return {
    host: context.host,
    prepare: (_agent, job, notes) => prepareRemote(context, job, notes),
    attach: (agent, job, io) => attachRemote(context, fence, agent, job, io),
    check: (agent, job, succeeded) => checkRemote(context, merge, agent, job, succeeded),
    sweep: (keep, names) => sweepHosts(context, keep, names),
    fence,
    answers: (name) => !context.silent.has(name),
    close: context.close
  }
}
