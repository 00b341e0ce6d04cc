import {setTimeout as sleep} from 'node:timers/promises'
import type {JobView} from './slurm-follow.js'
import {isEnded, slurmCli, slurmPhase, type SlurmJob} from './slurm-cli.js'

/** Slurm's queue as one host's attempts see it: one `squeue` serves every attempt's poll (it lists the whole queue anyway). */
export class SlurmQueue {
  #cached: {at: number; jobs: Promise<SlurmJob[] | {error: string}>} | undefined

  /** Every job Slurm still knows, at most 400 ms old (`fresh`: asked now). */
  jobs(fresh = false): Promise<SlurmJob[] | {error: string}> {
    if (fresh || !this.#cached || Date.now() - this.#cached.at > 400) this.#cached = {at: Date.now(), jobs: slurmCli.queue()}
    return this.#cached.jobs
  }

  /** A submit changed the queue: the next look asks again. */
  changed(): void {
    this.#cached = undefined
  }

  /** What Slurm says of the job named `key` (the one `knownId` names, when it knows several). */
  async view(key: string, knownId: string | undefined): Promise<JobView | {error: string}> {
    const listed = await this.jobs()
    if ('error' in listed) return listed
    const mine = listed.filter((job) => job.name === key).sort((a, b) => Number(a.id) - Number(b.id))
    const live = mine.filter((job) => !isEnded(job.state))
    // A second submit of the key (its first answer lost) waits behind the first (singleton): end it.
    if (live.length > 1) await slurmCli.cancel(live.slice(1).map((job) => job.id))
    let current = live[0] ?? mine.find((job) => job.id === knownId) ?? mine.at(-1)
    // squeue may drop a finished job before scontrol does.
    if (!current && knownId) current = await slurmCli.show(knownId)
    if (!current) return {}
    return {id: current.id, phase: slurmPhase(current.state), detail: current.state}
  }

  /** `scancel` every live job of the keys; true once the queue holds none of them live (false: Slurm did not answer). */
  async end(keys: readonly string[]): Promise<boolean> {
    const wanted = new Set(keys)
    for (let tries = 0; tries < 10; tries++) {
      if (tries > 0) await sleep(Math.min(2000, 200 * tries))
      const listed = await this.jobs(true)
      if ('error' in listed) return false
      const live = listed.filter((job) => wanted.has(job.name) && !isEnded(job.state)).map((job) => job.id)
      if (live.length === 0) return true
      await slurmCli.cancel(live)
    }
    return false
  }
}
