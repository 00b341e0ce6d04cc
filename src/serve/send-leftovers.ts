import {loadPlan} from '../plan/load-plan.js'
import {liveRunOf} from '../store/live-run-of.js'
import {openNotifier, type Notifier} from '../notify/notifier.js'
import {readNotify} from '../notify/read-notify.js'

/**
 * `mdplan serve`: the notifications a plan's runs left undelivered (a coordinator killed, a receiver down at
 * the run's end) are sent, for each plan no live run holds (that run sends them). Resolves to what stops the
 * sending, waiting at most `waitMs` for deliveries under way.
 */
export async function sendLeftovers(files: readonly string[], warn: (message: string) => void): Promise<(waitMs: number) => Promise<void>> {
  const notifiers: Notifier[] = []
  for (const file of files) {
    if (liveRunOf(file) !== undefined) continue
    try {
      const notify = readNotify(await loadPlan(file))
      if (notify.targets.length === 0 || notify.diagnostics.some((d) => d.severity === 'error')) continue
      notifiers.push(openNotifier({file, targets: notify.targets, warn: (message) => warn(`${file}: ${message}`)}))
    } catch {
      // A plan that does not read is the page's to show; its notifications wait for a run.
    }
  }
  return async (waitMs) => {
    await Promise.all(notifiers.map((notifier) => notifier.finish(waitMs)))
  }
}
