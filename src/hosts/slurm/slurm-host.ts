import {constants} from 'node:fs'
import {access, mkdir, readdir, rename, rm, writeFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {jobArchive} from '../job-archive.js'
import {isSafeKey} from '../job-key.js'
import {followJob, type JobView} from './slurm-follow.js'
import {isEnded, isWorkerLost, slurmCli, type SlurmJob} from './slurm-cli.js'

/**
 * The batch script: constant text, run in the job folder (`--chdir`). The
 * job itself is job-scripts.ts's run.sh, as on an ssh host: it checks out the
 * base from the bundle, sources and deletes the 0600 env file, runs the
 * agent, commits with the key, bundles the result, writes `rc` last.
 */
const batchScript = [
  '#!/bin/sh',
  '# mdplan: one attempt; everything it needs is in this folder.',
  '# A second job of the same key (a submit repeated after its answer was lost) must not run the agent again:',
  '# mkdir is atomic, on a shared file system too.',
  'mkdir "$PWD/started" 2>/dev/null || { echo "mdplan: this attempt already started in another job" >&2; exit 0; }',
  'exec sh "$PWD/run.sh" "$PWD"',
  ''
].join('\n')

/** How long Slurm's answer may lag behind the job folder (a shared file system's caches) before a job counts as gone. */
const settleMs = 5_000

/**
 * A Slurm cluster: each attempt is one `sbatch` job named by its key, with
 * `--dependency=singleton` (two submits of one key never run at once) and
 * `--no-requeue` (Slurm never starts an attempt again behind mdplan's back).
 * Code goes in and work comes out through `dir`, a folder this machine and
 * the compute nodes share: the job folder `<dir>/jobs/<key>/` holds the
 * base bundle, the job's output (followed from here), its exit code and its
 * result bundle, which answer for a job Slurm has already forgotten.
 */
export function slurmHost(spec: HostSpec): Host {
  const dir = (spec.dir ?? '~/.mdplan').replace(/^~(?=\/|$)/, homedir())
  const jobs = join(dir, 'jobs')
  const folderOf = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return join(jobs, key)
  }
  // One `squeue` serves every attempt's poll (it lists the whole queue anyway).
  let cached: {at: number; jobs: Promise<SlurmJob[] | {error: string}>} | undefined
  const queue = (fresh = false): Promise<SlurmJob[] | {error: string}> => {
    if (fresh || !cached || Date.now() - cached.at > 400) cached = {at: Date.now(), jobs: slurmCli.queue()}
    return cached.jobs
  }

  const view = async (key: string, knownId: string | undefined): Promise<JobView | {error: string}> => {
    const listed = await queue()
    if ('error' in listed) return listed
    const mine = listed.filter((job) => job.name === key).sort((a, b) => Number(a.id) - Number(b.id))
    const live = mine.filter((job) => !isEnded(job.state))
    // A second submit of the key (its first answer lost) waits behind the first (singleton): end it.
    if (live.length > 1) await slurmCli.cancel(live.slice(1).map((job) => job.id))
    let current = live[0] ?? mine.find((job) => job.id === knownId) ?? mine.at(-1)
    // squeue may drop a finished job before scontrol does.
    if (!current && knownId) current = await slurmCli.show(knownId)
    if (!current) return {}
    const state = current.state
    return {
      id: current.id,
      phase: state === 'PENDING' || state === 'CONFIGURING' ? 'queued' : isWorkerLost(state) ? 'lost' : isEnded(state) ? 'ended' : 'running',
      detail: state
    }
  }

  return {
    spec,

    run(job, command) {
      const folder = folderOf(job.key)
      return followJob({
        spec,
        engine: 'slurm',
        job,
        command,
        folder,
        settleMs,
        view: (knownId) => view(job.key, knownId),
        async submit(env) {
          const archive = await jobArchive(job, command, env)
          if ('error' in archive) return archive
          try {
            await mkdir(jobs, {recursive: true})
            const staging = join(jobs, `.staging-${job.key}-${process.pid}`)
            await rm(staging, {recursive: true, force: true})
            await mkdir(staging, {mode: 0o700})
            await execa('tar', ['-x', '-f', archive.file, '-C', staging])
            await writeFile(join(staging, 'batch.sh'), batchScript, {mode: 0o700})
            // A folder that never started (its submit lost before Slurm took it) is made again.
            await rm(folder, {recursive: true, force: true})
            await rename(staging, folder)
          } catch (error) {
            return {error: `could not write the job folder ${folder}: ${error instanceof Error ? error.message : String(error)}`}
          } finally {
            await archive.dispose()
          }
          const submitted = await slurmCli.submit([
            `--job-name=${job.key}`,
            '--dependency=singleton',
            '--no-requeue',
            `--chdir=${folder}`,
            `--output=${join(folder, 'slurm.out')}`,
            // Only these travel in the job's record; the agent's own variables and credentials are in the 0600 env file.
            '--export=PATH,HOME',
            ...(spec.partition ? [`--partition=${spec.partition}`] : []),
            ...(spec.time ? [`--time=${spec.time}`] : []),
            ...(spec.cpus ? [`--cpus-per-task=${Math.ceil(spec.cpus)}`] : []),
            ...(spec.memory ? [`--mem=${spec.memory}`] : []),
            ...(spec.sbatch ?? []),
            join(folder, 'batch.sh')
          ])
          cached = undefined
          return submitted
        },
        cancel: (key) => this.cancel([key])
      })
    },

    async collect({key, root, branch, base}): Promise<Collected> {
      const folder = folderOf(key)
      if (!(await exists(join(folder, 'rc')))) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
      const bundle = join(folder, 'result.bundle')
      if (!(await exists(bundle))) return {ok: true}
      return fetchResult({file: bundle, key, root, branch, base})
    },

    async cancel(keys) {
      if (keys.length === 0) return
      const wanted = new Set(keys)
      const listed = await queue(true)
      if (!('error' in listed)) await slurmCli.cancel(listed.filter((job) => wanted.has(job.name) && !isEnded(job.state)).map((job) => job.id))
      await Promise.all(keys.map((key) => rm(folderOf(key), {recursive: true, force: true, maxRetries: 3})))
    },

    async list(prefix) {
      const keys = new Set<string>()
      const listed = await queue(true)
      if (!('error' in listed)) for (const job of listed) if (job.name.startsWith(prefix) && !isEnded(job.state)) keys.add(job.name)
      for (const name of await readdir(jobs).catch(() => [])) if (name.startsWith(prefix) && isSafeKey(name)) keys.add(name)
      return [...keys]
    },

    async preflight() {
      const name = `host ${spec.name} (slurm)`
      const problems: string[] = []
      const info = await slurmCli.info(spec.partition)
      if (info) problems.push(`${name}: ${info}; check that \`sinfo${spec.partition ? ` --partition ${spec.partition}` : ''}\` works here (SLURM_CONF, munge)`)
      const writable = await mkdir(jobs, {recursive: true}).then(() => access(jobs, constants.W_OK)).then(() => true, () => false)
      if (!writable) problems.push(`${name}: cannot write the job folder ${jobs}; set \`dir:\` to a folder this machine and the compute nodes share`)
      return problems
    },

    close: async () => undefined
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false)
}
