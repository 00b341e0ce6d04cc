import {existsSync, mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {readdir, rename, rm, writeFile} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import {DetachRequest} from '../detach-request.js'
import type {Host, HostJob, HostRun} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import type {HostCommand} from '../../process/process-types.js'
import {isSafeKey, parseJobKey} from '../job-key.js'
import {jobAttempt, type JobAttempt} from '../job-attempt.js'
import {staleStaging, stagingName} from '../staging.js'
import {inheritedEnv} from '../../process/inherited-env.js'
import {endGroup, endGroupConfirmed, signalGroup, trackGroup} from '../../process/process-groups.js'
import {spawnProcess} from '../../process/spawn-process.js'
import {endedAt, exitStatus, jobPid, localJobState, startedAt} from './local-job.js'
import {localJobScript, lostGuardStatus} from './local-job-script.js'

/** How often a followed job's output and end are looked at when it is not this process's child. */
const pollMs = 100

/**
 * This machine, as a host whose transport is a local exec. Every attempt is a job in a folder of its own
 * (`<jobs>/<key>/`, beside the plan), started detached in its own session by a small wrapper
 * (local-job-script.ts) that writes its output and its end there: so an agent outlives a coordinator that
 * dies, and the next run attaches to it (output replayed from the files) or collects its end, instead of
 * running it again. The key is in the row before the job starts (the write-ahead log); its folder is the
 * guard (one wrapper per key). Before a new key of an agent starts, every other job of that agent here is
 * ended and confirmed ended (fencing by agent).
 */
export function localHost(spec: HostSpec, jobs: string): Host {
  const folder = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return join(jobs, key)
  }
  const host: Host = {
    spec,
    run: (job, command) => runLocal({job, command, jobs, folder: folder(job.key), fence: (key) => fence(jobs, key)}),
    // The agent's work is in this machine's tree already: git takes it in (src/git/git-guard.ts), nothing to fetch.
    collect: async () => ({ok: true}),
    cancel: async (keys) => {
      await Promise.all(keys.map((key) => removeJob(folder(key))))
    },
    list: async (prefix) => {
      const names = await readdir(jobs).catch(() => [] as string[])
      // What a launch killed mid-way left (it never became a job), once its run is gone.
      for (const name of names) if (staleStaging(name, prefix)) await rm(join(jobs, name), {recursive: true, force: true})
      return names.filter((name) => name.startsWith(prefix) && parseJobKey(name) !== undefined)
    },
    preflight: async () => [],
    status: (key) => {
      const state = localJobState(folder(key))
      return state === 'missing' ? {state} : {state, startedAt: startedAt(folder(key))}
    },
    close: async () => {}
  }
  return host
}

interface LocalRun {
  job: HostJob
  command: HostCommand
  jobs: string
  folder: string
  fence: (key: string) => Promise<void>
}

async function runLocal({job, command, folder, fence}: LocalRun): Promise<HostRun> {
  const state = localJobState(folder)
  // A job found running is timed from its own start, as if this run had launched it.
  const elapsed = state === 'running' ? Date.now() - startedAt(folder) : 0
  const frame = jobAttempt({...job, ...(job.timeoutMs ? {timeoutMs: Math.max(1, job.timeoutMs - elapsed)} : {})}, command)
  if (frame.stop.aborted) return frame.finish({interrupted: true})
  if (state === 'ended') return collect(frame, folder, true, endedAt(folder))
  if (state === 'running') return follow(frame, folder, {attached: true}, job.signal)
  if (state === 'stopped' || state === 'dead') {
    return frame.finish({signal: 'SIGKILL', error: `the job ${job.key} ended without a result`, attached: true})
  }
  await fence(job.key)
  place(folder, command.input)
  const cwd = job.cwd ?? process.cwd()
  // The whole environment is built here, not extended: another agent's answer or resume state must not be
  // inherited. PWD names the agent's own folder (a shell sets it so; opencode takes its project from it).
  const wrapper = spawnProcess('sh', ['-c', localJobScript, 'mdplan-job', folder, command.file, ...command.args], {
    cwd,
    env: {...inheritedEnv(frame.env), PWD: resolve(cwd)}
  })
  const pid = await wrapper.started
  if (pid === undefined) {
    const ended = await wrapper
    return frame.finish({spawnFailed: true, error: ended.shortMessage ?? ended.message ?? `could not start sh in ${cwd}`})
  }
  // Tests only: hold mdplan between the job's start and everything it does next, so a test can land a SIGKILL there.
  const pause = Number(process.env.MDPLAN_TEST_SPAWN_PAUSE_MS)
  if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
  const exited = Promise.resolve(wrapper).then((outcome) => outcome)
  return follow(frame, folder, {child: {pid, exited, release: () => wrapper.release?.()}}, job.signal)
}

/**
 * The job's folder with its stdin, made in a staging folder and renamed into place, so a folder is never
 * half made; one a launch cut short left (its wrapper never started) gets its stdin again.
 */
function place(folder: string, input: string | undefined): void {
  if (existsSync(folder)) {
    if (input !== undefined) writeFileSync(join(folder, 'input'), input)
    return
  }
  const staging = join(dirname(folder), stagingName(basename(folder)))
  rmSync(staging, {recursive: true, force: true})
  mkdirSync(staging, {recursive: true})
  if (input !== undefined) writeFileSync(join(staging, 'input'), input)
  try {
    renameSync(staging, folder)
  } catch {
    // Another start of the key placed it first: its folder is the one.
    rmSync(staging, {recursive: true, force: true})
  }
}

interface Follow {
  /** This process started the wrapper: its exit is the job's end (another start may have won the key's guard). */
  child?: {pid: number; exited: Promise<{exitCode?: number | undefined}>; release: () => void}
  attached?: boolean
}

/** Follow the job's output until it ends, is stopped (Ctrl-C), times out, or is handed over (a lost lock). */
async function follow(frame: JobAttempt, folder: string, started: Follow, signal: AbortSignal | undefined): Promise<HostRun> {
  let how = started
  let pid = how.child?.pid ?? jobPid(folder)
  let group = pid === undefined ? undefined : trackGroup(pid)
  let childEnded = false
  let attached = how.attached === true
  // The wait between looks ends early when the wrapper this process started exits, or on Ctrl-C.
  let wakeUp: (() => void) | undefined
  const wake = (): void => wakeUp?.()
  let lostGuard = false
  void how.child?.exited.then((outcome) => {
    lostGuard = outcome.exitCode === lostGuardStatus
    childEnded = true
    wake()
  })
  frame.stop.addEventListener('abort', wake, {once: true})
  try {
    for (;;) {
      // A job found just started may not have written its pid yet.
      if (pid === undefined && (pid = jobPid(folder)) !== undefined) group = trackGroup(pid)
      await drain(frame, folder)
      if (frame.stop.aborted) {
        // Handed over (a lost lock): the job goes on alone, and this run does not wait for it to end.
        if (DetachRequest.asked(signal)) how.child?.release()
        return await stop(frame, folder, pid, signal)
      }
      if (exitStatus(folder) !== undefined) {
        // The agent's helpers must not outlive it: the rest of its group ends with it.
        if (pid !== undefined) endGroup(pid)
        return await collect(frame, folder, attached)
      }
      if (childEnded) {
        // Another start of this key holds the guard (a rerun that raced a start a killed run had begun): follow that one.
        const winner = jobPid(folder)
        if (lostGuard && winner !== how.child?.pid) {
          attached = true
          group?.forget()
          pid = winner
          group = pid === undefined ? undefined : trackGroup(pid)
          childEnded = false
          how = {attached: true}
          continue
        }
        if (exitStatus(folder) !== undefined) continue
        return await frame.finish({signal: 'SIGKILL', error: `the job in ${folder} ended without a result`, attached})
      }
      if (!how.child || attached) {
        const state = localJobState(folder)
        if (state === 'dead' || state === 'stopped') return await frame.finish({signal: 'SIGKILL', error: `the job in ${folder} ended without a result`, attached})
      }
      if (!childEnded && !frame.stop.aborted) await new Promise<void>((resolve) => ((wakeUp = resolve), setTimeout(resolve, pollMs)))
    }
  } finally {
    group?.forget()
  }
}

/** The end of a job whose exit status is written: its last output, its status, and what could not start. */
async function collect(frame: JobAttempt, folder: string, attached: boolean, ended?: number): Promise<HostRun> {
  await drain(frame, folder)
  const rc = exitStatus(folder)
  if (existsSync(join(folder, 'nostart'))) {
    return frame.finish({spawnFailed: true, exitCode: rc, error: 'not found (no such executable on PATH)', attached})
  }
  if (rc === lostGuardStatus && !existsSync(join(folder, 'run'))) return frame.finish({spawnFailed: true, error: `the job folder ${folder} could not be used`, attached})
  return frame.finish({exitCode: rc, attached, ...(ended !== undefined ? {endedAt: ended} : {})})
}

/** Ctrl-C ends the job and marks its folder stopped (the next run goes on from its session); a timeout ends it; a lost lock leaves it. */
async function stop(frame: JobAttempt, folder: string, pid: number | undefined, signal: AbortSignal | undefined): Promise<HostRun> {
  if (!DetachRequest.asked(signal)) {
    if (!frame.timedOut) await writeFile(join(folder, 'stopped'), '').catch(() => undefined)
    if (pid !== undefined) await endGroupConfirmed(pid)
  }
  await drain(frame, folder)
  return frame.finish({})
}

async function drain(frame: JobAttempt, folder: string): Promise<void> {
  await frame.drain(join(folder, 'out'), 'out')
  await frame.drain(join(folder, 'err'), 'err')
}

/** End every other job of the key's agent here, confirmed, and remove its folder: one copy of an agent at a time. */
async function fence(jobs: string, key: string): Promise<void> {
  const agentPrefix = key.replace(/-a\d+-[0-9a-f]+$/, '-a')
  const names = await readdir(jobs).catch(() => [] as string[])
  const others = names.filter((name) => name !== key && name.startsWith(agentPrefix) && /^\d+-[0-9a-f]+$/.test(name.slice(agentPrefix.length)))
  await Promise.all(others.map((name) => removeJob(join(jobs, name))))
}

/** End a job's process group if it still runs (confirmed), then remove its folder (renamed away first). */
export async function removeJob(folder: string): Promise<void> {
  if (!existsSync(folder)) return
  const pid = jobPid(folder)
  if (pid !== undefined && exitStatus(folder) === undefined && signalGroup(pid, 0)) {
    await writeFile(join(folder, 'cancelled'), '').catch(() => undefined)
    await endGroupConfirmed(pid)
  }
  const gone = `${folder}.gone.${process.pid}`
  await rename(folder, gone).catch(() => undefined)
  await rm(gone, {recursive: true, force: true})
}
