import {list, positiveNumber, text} from '../host-fields.js'
import type {HostType} from '../host-type.js'
import {slurmHost} from './slurm-host.js'

/** `{type: slurm, dir: ~/mdplan-jobs, partition, time, cpus, memory, sbatch}`: an sbatch job per attempt. */
export const slurmType: HostType = {
  fields: {
    dir: {to: 'dir', read: text},
    partition: {to: 'partition', read: text},
    time: {to: 'time', read: text},
    cpus: {to: 'cpus', read: positiveNumber},
    memory: {to: 'memory', read: text},
    sbatch: {to: 'sbatch', read: list((arg) => typeof arg === 'string' && arg.startsWith('-'), '`sbatch` options, such as `[--qos=long, --account=lab]`')}
  },
  check: (spec) => [
    // The job folder is shared: the coordinator writes the code in and reads the work back there, the job runs there.
    !spec.dir && 'a slurm host needs `dir`: a folder this machine and the compute nodes share (for example `~/mdplan-jobs` on a shared home)',
    spec.dir !== undefined && !/^(\/|~\/|~$)/.test(spec.dir) && '`dir` must be an absolute path (or start with `~/`)'
  ],
  create: (spec, context) => slurmHost(spec, context.scratch)
}
