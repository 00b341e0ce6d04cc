import type {PlanStore} from '../store/plan-store.js'
import {acquirePlanLock} from '../store/plan-lock.js'
import type {RunLock} from '../store/lock.js'
import type {HostSetup} from './setup-hosts.js'

/** The run lock as the executor looks at it (DriverInput's `lock`). */
export interface LockWatch {
  check(): Error | undefined
  onLost(listener: (error: Error) => void): void
}

/**
 * Take the plan's lock (a failure closes the hosts' connections, and throws). A lost lock is told to the
 * executor as soon as the lock's refresh or watch finds it, even one lost before the executor listens.
 */
export async function takeRunLock(file: string, store: PlanStore, hosts: HostSetup): Promise<{lock: RunLock; watch: LockWatch}> {
  let onLockLost: ((error: Error) => void) | undefined
  let lostEarly: Error | undefined
  const lock = await acquirePlanLock(file, {onCompromised: (error) => (onLockLost ? onLockLost(error) : (lostEarly = error))}, store.target).catch(async (error: unknown) => {
    await hosts.runtime?.close()
    throw error
  })
  const watch: LockWatch = {
    check: () => lostEarly ?? lock.check(),
    onLost: (listener) => {
      onLockLost = listener
      if (lostEarly) listener(lostEarly)
    }
  }
  return {lock, watch}
}
