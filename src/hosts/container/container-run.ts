import {existsSync} from 'node:fs'
import {mkdir, readdir, readFile, rename, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {execa} from 'execa'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobArchive} from '../job-archive.js'
import {jobAttempt, type JobAttempt} from '../job-attempt.js'
import {stagingName} from '../staging.js'
import type {ContainerCli} from './container-cli.js'

/** Where the job folder is mounted inside the container. */
export const mount = '/mdplan/job'

export interface ContainerRunInput {
  spec: HostSpec
  cli: ContainerCli
  job: HostJob
  command: HostCommand
  /** The folder of every job of the host, and this job's folder (its key's) in it. */
  jobs: string
  folder: (key: string) => string
  scratch: string
  /** Remove the job: its container (confirmed gone) and its folder; false when the engine would not confirm. */
  cancel: (key: string) => Promise<boolean>
  /** Ctrl-C's end: the container removed, its folder kept, marked stopped (stop-script.ts says why). */
  stop: (key: string) => Promise<void>
}

/**
 * One attempt in a container named by its key: the job folder staged and renamed into place (a submit cut
 * short leaves no half-made folder), the container started on it, its output followed from the folder's
 * files, its end read from `rc`. A container that stays `created` (its `run -d` died between create and
 * start), or in a state the engine should not leave it in, ends the attempt after `stuckMs()`; one that
 * ended before its job began (`pid`) never started its agent: nothing of the attempt was spent.
 */
export async function runContainer(input: ContainerRunInput): Promise<HostRun> {
  const {spec, job, cli} = input
  const frame = jobAttempt(job, input.command, {passed: spec.env, host: spec})
  if (frame.stop.aborted) return frame.finish({})
  const found = job.reattach ? await cli.inspect(job.key) : 'missing'
  if (found !== 'missing' || existsSync(join(input.folder(job.key), 'rc'))) frame.attached = true
  else {
    const failed = await submit(input, frame)
    if (failed) return failed
  }
  return follow(input, frame)
}

/** Place the job's folder and start its container; the attempt's end when that failed. */
async function submit(input: ContainerRunInput, frame: JobAttempt): Promise<HostRun | undefined> {
  const {spec, job, cli} = input
  const dir = input.folder(job.key)
  const placed = await place(input, frame)
  if (placed !== undefined) return frame.finish({spawnFailed: true, error: placed})
  // Going on with an earlier job's session: its clone is mounted where every job's clone is, so the agent runs
  // in the same folder (a CLI finds its sessions by the folder) with the work it left.
  const earlier = job.work !== undefined && existsSync(join(input.folder(job.work), 'work', '.git', 'mdplan-ready')) ? ['-v', `${join(input.folder(job.work), 'work')}:${mount}/work`] : []
  const started = await cli.run(['run', '-d', '--name', job.key, '--label', `mdplan.key=${job.key}`, '--restart', 'no', '--network', 'host', '-v', `${dir}:${mount}`, ...earlier, '--workdir', mount, spec.image!, 'sh', `${mount}/run.sh`, mount])
  if (started.exitCode !== 0 && !/already in use|already exists|Conflict/i.test(started.stderr)) {
    // The answer may be lost while the engine started it: only a container the engine does not know is a failed submit.
    if ((await cli.inspect(job.key)) === 'missing') return frame.finish({spawnFailed: true, error: `${cli.engine} run: ${started.stderr.trim().split('\n').at(-1)}`})
  }
  frame.attached = started.exitCode !== 0
  return undefined
}

/**
 * The job's folder, whole, before any container sees it: a new one is unpacked in a staging folder and
 * renamed into place (whichever of two submits of the key renames first, the other attaches); one Ctrl-C
 * stopped starts again in place, its clone kept (the rename of its mark is the guard, as on ssh hosts, and
 * the mark `restart` stays until the folder is whole again, so a restart cut short is done again). A folder
 * without its job script (made by an older mdplan cut short) is made anew. Why it could not, if it could not.
 */
async function place(input: ContainerRunInput, frame: JobAttempt): Promise<string | undefined> {
  const {job, jobs} = input
  const dir = input.folder(job.key)
  if (existsSync(dir) && !existsSync(join(dir, 'run.sh')) && !existsSync(join(dir, 'restart'))) await rm(dir, {recursive: true, force: true})
  const fresh = !existsSync(dir)
  const again = !fresh && ((await rename(join(dir, 'stopped'), join(dir, 'restart')).then(() => true, () => false)) || existsSync(join(dir, 'restart')))
  if (!fresh && !again) return undefined
  const archive = await jobArchive(job, input.command, frame.env, 'full', input.scratch)
  if ('error' in archive) return archive.error
  await mkdir(jobs, {recursive: true})
  const staging = join(jobs, stagingName(job.key))
  try {
    await rm(staging, {recursive: true, force: true})
    await mkdir(staging, {mode: 0o700})
    await execa('tar', ['-x', '-f', archive.file, '-C', staging])
    if (fresh) await rename(staging, dir).catch(() => undefined)
    else {
      for (const name of await readdir(dir)) if (name !== 'work' && name !== 'restart') await rm(join(dir, name), {recursive: true, force: true})
      for (const name of await readdir(staging)) await rename(join(staging, name), join(dir, name))
      await rm(join(dir, 'restart'), {force: true})
    }
    return undefined
  } catch (error) {
    return `could not write the job folder ${dir}: ${error instanceof Error ? error.message : String(error)}`
  } finally {
    await rm(staging, {recursive: true, force: true})
    await archive.dispose()
  }
}

/** Follow the job's output files; the engine says when the container ended, or that it does not move. */
async function follow(input: ContainerRunInput, frame: JobAttempt): Promise<HostRun> {
  const {job, cli} = input
  const dir = input.folder(job.key)
  for (;;) {
    await drain(frame, dir)
    if (frame.stop.aborted) return frame.stopped({cancel: async () => void (await input.cancel(job.key)), stop: () => input.stop(job.key)})
    const state = await cli.inspect(job.key)
    if (state !== undefined) frame.heard()
    else if (frame.silent) return frame.lost()
    if (state === 'exited' || state === 'stopped' || state === 'missing') return ended(input, frame)
    // Created and never started (its `run -d` died in between), or paused, or a state the engine should not be in.
    if (frame.stuck(state === 'running' || state === undefined ? undefined : state)) return stuck(input, frame, state!)
    await frame.pause(100)
  }
}

/** The container ended: the job's end, or none (it ran and died; or its job never began). */
async function ended(input: ContainerRunInput, frame: JobAttempt): Promise<HostRun> {
  const {job, cli} = input
  const dir = input.folder(job.key)
  await drain(frame, dir)
  const rc = await readFile(join(dir, 'rc'), 'utf8').catch(() => undefined)
  if (rc !== undefined) return frame.finish({exitCode: Number(rc.trim())})
  if (existsSync(join(dir, 'pid'))) return frame.finish({signal: 'SIGKILL', error: `the container ${job.key} ended without a result`})
  if (!(await input.cancel(job.key))) return frame.lost(`the container ${job.key} ended before its job began, and ${cli.engine} would not remove it`)
  return frame.notStarted(`the container ${job.key} ended before its job began`)
}

/** A container that stayed in a state that should move: removed (confirmed), then the attempt's end. */
async function stuck(input: ContainerRunInput, frame: JobAttempt, state: string): Promise<HostRun> {
  const {job, cli} = input
  const dir = input.folder(job.key)
  const began = existsSync(join(dir, 'pid'))
  if (!(await input.cancel(job.key))) return frame.lost(`the container ${job.key} stayed ${state}, and ${cli.engine} would not remove it`)
  if (began) return frame.finish({signal: 'SIGKILL', error: `the container ${job.key} stayed ${state} and was removed`})
  return frame.notStarted(`the container ${job.key} stayed ${state} and never started its job`)
}

async function drain(frame: JobAttempt, dir: string): Promise<void> {
  await frame.drain(join(dir, 'out'), 'out')
  await frame.drain(join(dir, 'err'), 'err')
}
