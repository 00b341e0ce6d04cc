import {constants} from 'node:fs'
import {access, mkdir, readdir, rm} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {isSafeKey} from '../job-key.js'
import {staleStaging} from '../staging.js'
import {followJob} from './slurm-follow.js'
import {isEnded, slurmCli} from './slurm-cli.js'
import {SlurmQueue} from './slurm-queue.js'
import {submitSlurmJob} from './slurm-submit.js'

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
export function slurmHost(spec: HostSpec, scratch: string): Host {
  const dir = (spec.dir ?? '~/.mdplan').replace(/^~(?=\/|$)/, homedir())
  const jobs = join(dir, 'jobs')
  const folderOf = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return join(jobs, key)
  }
  const queue = new SlurmQueue()
  /** End the keys' jobs and remove their folders; true once the queue holds none of them live. */
  const remove = async (keys: readonly string[]): Promise<boolean> => {
    const ended = await queue.end(keys)
    await Promise.all(keys.map((key) => rm(folderOf(key), {recursive: true, force: true, maxRetries: 3})))
    return ended
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
        view: (knownId) => queue.view(job.key, knownId),
        async submit(env) {
          const submitted = await submitSlurmJob({spec, job, command, env, jobs, folder, scratch})
          queue.changed()
          return submitted
        },
        cancel: (key) => remove([key])
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
      if (keys.length > 0) await remove(keys)
    },

    async list(prefix) {
      const keys = new Set<string>()
      const listed = await queue.jobs(true)
      if (!('error' in listed)) for (const job of listed) if (job.name.startsWith(prefix) && !isEnded(job.state)) keys.add(job.name)
      for (const name of await readdir(jobs).catch(() => [])) {
        if (name.startsWith(prefix) && isSafeKey(name)) keys.add(name)
        // What a submit killed mid-way left (it never became a job), once its run is gone.
        else if (staleStaging(name, prefix)) await rm(join(jobs, name), {recursive: true, force: true})
      }
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
