import {resolve} from 'node:path'
import type {Io} from './io.js'
import {PlanStore} from '../store/plan-store.js'

/** The plan `mdplan answer` writes, opened through its store; undefined once stderr says why it cannot be read. */
export async function openAnswerStore(planArg: string, io: Io): Promise<PlanStore | undefined> {
  try {
    return await PlanStore.open(resolve(io.cwd, planArg))
  } catch (error) {
    io.stderr(`mdplan answer: cannot read ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
    return undefined
  }
}
