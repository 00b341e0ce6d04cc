import {dirname, resolve} from 'node:path'
import {loadPlan} from '../plan/load-plan.js'
import {PlanError} from '../plan/plan-error.js'
import {conflictDiagnostics} from '../plan/conflict-diagnostics.js'
import {readRows} from '../store/table-state.js'
import {acquirePlanLock} from '../store/plan-lock.js'
import type {RunLock} from '../store/lock.js'
import {gitRoot} from '../git/git-root.js'
import {planKey} from '../layout/plan-key.js'
import {hostFilesFolder, jobsFolder} from '../layout/jobs-folder.js'
import {loggedLaunches} from '../layout/logged-launches.js'
import {readHosts} from '../hosts/read-hosts.js'
import {isRemote, localHostName, localHostSpec, type HostSpec} from '../hosts/host-spec.js'
import {createHost} from '../hosts/host-types.js'
import type {Host} from '../hosts/host.js'
import {jobKeyPrefix, jobSpace, parseJobKey} from '../hosts/job-key.js'
import {neededJobs} from '../hosts/kept-jobs.js'
import {openJobLedger, suspectJobs, type JobLedger} from '../hosts/job-ledger.js'
import {resolveHostPaths} from '../hosts/host-paths.js'
import {exitCodes} from '../exit-codes.js'

export interface CleanOptions {
  /** The plan file, as given (messages show it). */
  file: string
  cwd: string
  /** Say what would go, remove nothing. */
  dryRun?: boolean
  /** Remove the jobs the rows still need too (an `in_progress` row's job, a `work:` folder), ending any that runs. */
  force?: boolean
  say: (line: string) => void
}

/**
 * `mdplan clean PLAN`: remove the plan's jobs, and their folders (each a clone), on every host that may hold
 * one (the hosts its ledger, its rows and its run log name, and those it declares; this machine's too),
 * whether or not the plan uses that host now. Never another plan's (only keys of its own prefix), never a job
 * its rows still need (an `in_progress` row's `job:`, a `work:` folder a next attempt goes on in) unless
 * `force`. Holds the plan's lock (a live run keeps its jobs: exit 3). A host that does not answer keeps its
 * jobs in the ledger for the next run or clean (exit 1). Resolves to the exit code.
 */
export async function cleanPlan(options: CleanOptions): Promise<number> {
  const file = resolve(options.cwd, options.file)
  const plan = await loadPlan(file)
  const problems = [...conflictDiagnostics(plan), ...readHosts(plan).diagnostics].filter((d) => d.severity === 'error')
  if (problems.length > 0) throw new PlanError(problems)
  let lock: RunLock | undefined
  // A run that goes on owns its jobs (acquirePlanLock throws LockHeldError: exit 3); a dry run changes nothing.
  if (!options.dryRun) lock = await acquirePlanLock(file, {onCompromised: () => undefined})
  const opened: Host[] = []
  try {
    const rows = readRows(plan)
    const location = await gitRoot(dirname(file))
    const slug = planKey(file, location?.root)
    const prefix = jobKeyPrefix(location ? jobSpace(slug, location.root) : slug)
    const own = (key: string): boolean => key.startsWith(prefix) && parseJobKey(key) !== undefined
    const needed = options.force ? new Map<string, string>() : neededJobs(rows)
    const ledger = openJobLedger(file)
    suspectJobs(ledger, rows.values(), loggedLaunches(file))
    const read = readHosts(plan)
    const declared = new Map([...read.hosts].filter(([, spec]) => isRemote(spec)).map(([name, spec]) => [name, resolveHostPaths(spec, file)]))
    const names = [...new Set([...declared.keys(), ...ledger.pending()])].sort()
    const verb = options.dryRun ? 'would remove' : 'removed'
    const tally = {removed: 0, kept: 0, unanswered: 0}
    const visit = (name: string, host: Host, label: string, record: boolean): Promise<void> => cleanHost({options, ledger, prefix, own, needed, verb, tally}, {name, host, label, record})
    await Promise.all(
      names.map(async (name) => {
        const spec: HostSpec | undefined = declared.get(name) ?? ledger.spec(name)
        if (!spec) {
          tally.unanswered++
          const known = ledger.keys(name)
          options.say(
            `host ${name}: the plan does not declare it, and nothing says how to reach it${known.length > 0 ? ` (${known.length === 1 ? 'a job' : `${known.length} jobs`} of the plan may be there: ${known.join(', ')})` : ''}: declare it under \`hosts:\` and run \`mdplan clean\` again`
          )
          return
        }
        const host = createHost(spec, {root: location?.root ?? dirname(file), jobs: jobsFolder(file), scratch: hostFilesFolder(file)})
        opened.push(host)
        await visit(name, host, `host ${name}${spec.address ? ` (${spec.address})` : ''}`, true)
      })
    )
    // This machine's jobs (`.mdplan/local-jobs/` beside the plan).
    await visit(localHostName, createHost(localHostSpec, {root: location?.root ?? dirname(file), jobs: jobsFolder(file), scratch: hostFilesFolder(file)}), 'this machine', false)
    options.say(`${options.file}: ${summary(tally, Boolean(options.dryRun), verb)}`)
    return tally.unanswered > 0 ? exitCodes.failed : exitCodes.ok
  } finally {
    await Promise.all(opened.map((host) => host.close()))
    await lock?.release()
  }
}

/** What one clean counts: jobs removed (or that would be), kept for the rows, hosts not reached. */
interface Tally {
  removed: number
  kept: number
  unanswered: number
}

/**
 * One host's part of a clean: the plan's jobs listed there, those the rows need kept (and said), the rest
 * removed and what is left recorded in the ledger (`record`: a remote host); a host that does not answer is
 * said and counted.
 */
async function cleanHost(
  clean: {options: CleanOptions; ledger: JobLedger; prefix: string; own: (key: string) => boolean; needed: ReadonlyMap<string, string>; verb: string; tally: Tally},
  visit: {name: string; host: Host; label: string; record: boolean}
): Promise<void> {
  const {options, ledger, prefix, own, needed, verb, tally} = clean
  const {name, host, label} = visit
  const at = new Date().toISOString()
  const listed = await host.list(prefix).catch(() => undefined)
  if (listed === undefined) {
    tally.unanswered++
    const known = ledger.keys(name).filter(own)
    options.say(`${label}: did not answer${known.length > 0 ? `; ${known.length === 1 ? 'a job' : `${known.length} jobs`} of the plan may be there (${known.join(', ')})` : ''}: run \`mdplan clean\` again once it answers (a run that reaches it sweeps it too)`)
    return
  }
  const mine = listed.filter(own)
  const keep = mine.filter((key) => needed.has(key))
  const gone = mine.filter((key) => !needed.has(key))
  for (const key of keep) options.say(`${label}: keeps ${key}: ${needed.get(key)} (\`--force\` removes it, ending it if it runs)`)
  tally.kept += keep.length
  if (options.dryRun) {
    if (gone.length > 0) options.say(`${label}: ${verb} ${gone.length === 1 ? '1 job' : `${gone.length} jobs`}: ${gone.join(', ')}`)
    tally.removed += gone.length
    return
  }
  const confirmed = gone.length > 0 ? await host.cancel(gone) : true
  const after = confirmed === true ? listed.filter((key) => !gone.includes(key)) : await host.list(prefix).catch(() => undefined)
  if (!after) {
    tally.unanswered++
    options.say(`${label}: stopped answering during the removal of ${gone.join(', ')}: run \`mdplan clean\` again once it answers`)
    return
  }
  const done = gone.filter((key) => !after.includes(key))
  if (done.length > 0) options.say(`${label}: ${verb} ${done.length === 1 ? '1 job' : `${done.length} jobs`}: ${done.join(', ')}`)
  if (done.length < gone.length) options.say(`${label}: still there after the removal: ${gone.filter((key) => after.includes(key)).join(', ')}`)
  tally.removed += done.length
  if (visit.record) ledger.listed(name, after.filter(own), at)
}

/** The clean's last line, after the plan's name. */
function summary(tally: Tally, dryRun: boolean, verb: string): string {
  const {removed, kept, unanswered} = tally
  return [
    removed === 0 ? `nothing ${dryRun ? 'to remove' : 'removed'}` : `${verb} ${removed === 1 ? '1 job' : `${removed} jobs`} and ${removed === 1 ? 'its folder' : 'their folders'}`,
    ...(kept > 0 ? [`kept ${kept} the rows still need`] : []),
    ...(unanswered > 0 ? [`${unanswered === 1 ? '1 host' : `${unanswered} hosts`} not reached`] : [])
  ].join('; ')
}
