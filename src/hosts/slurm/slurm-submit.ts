import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {execa} from 'execa'
import type {HostJob} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobArchive} from '../job-archive.js'
import {stagingName} from '../staging.js'
import {slurmCli} from './slurm-cli.js'

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

export interface SlurmSubmit {
  spec: HostSpec
  job: HostJob
  command: HostCommand
  env: Record<string, string>
  /** The host's job folders, and this job's. */
  jobs: string
  folder: string
  scratch: string
}

/**
 * Write the job's folder (unpacked in a staging folder, renamed into place: a submit cut short leaves no
 * half-made folder) and `sbatch` it under its key, with `--dependency=singleton` and `--no-requeue`.
 */
export async function submitSlurmJob({spec, job, command, env, jobs, folder, scratch}: SlurmSubmit): Promise<{id: string} | {error: string}> {
  const archive = await jobArchive(job, command, env, 'full', scratch)
  if ('error' in archive) return archive
  try {
    await mkdir(jobs, {recursive: true})
    const staging = join(jobs, stagingName(job.key))
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
  return slurmCli.submit([
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
}
