import type {Diagnostic, Plan} from '../plan/types.js'
import {validatePlan} from '../plan/validate-plan.js'
import {PlanError} from '../plan/plan-error.js'
import {checkPlanTree} from '../nested/check-plan-tree.js'
import {PlanStore} from '../store/plan-store.js'
import {readSideState} from '../store/read-side-state.js'
import {checkTemplates} from '../runners/template-safety/check-templates.js'
import {gitRoot, type GitRoot} from '../git/git-root.js'
import {committedPlan} from '../git/committed-plan.js'
import {warmSpawnHelper} from '../process/spawn-helper.js'
import {readNotify} from '../notify/read-notify.js'
import type {NotifyTarget} from '../notify/notify-target.js'
import type {RunPlanOptions} from './run-options.js'
import {readHosts} from '../hosts/read-hosts.js'
import {checkAccounts} from '../hosts/check-accounts.js'
import {resolveRunner} from '../runners/resolve-runner.js'
import {runnerMap} from '../nested/runner-map.js'
import {defaultConcurrency} from '../plan/defaults.js'

/**
 * A run's first phase: the plan opened in its store and checked (its own messages, validation, its child
 * plans, a side-file's state, the runner templates, `notify:`); any error stops the run (PlanError). `templates`
 * holds the templates' warnings too (and `notify:`'s), said once the run holds the plan.
 */
export async function openRunPlan(
  options: RunPlanOptions,
  file: string,
  cwd: string
): Promise<{root: Promise<GitRoot | undefined>; store: PlanStore; plan: Plan; templates: Diagnostic[]; notify: NotifyTarget[]}> {
  // The spawn helper boots while the plan parses (bin/start.js may have started it already): agents
  // are forked by it, not by this (soon large) process; and so is git, asked meanwhile where the
  // working tree is (which does not depend on the plan).
  warmSpawnHelper()
  const root = gitRoot(cwd)
  const store = await PlanStore.open(file, {history: true, committed: committedPlan(file)})
  const plan = store.plan
  const notify = readNotify(plan)
  const templates = [...checkTemplates(plan, options.runner), ...notify.diagnostics, ...accountWarnings(plan, options)]
  const problems = [
    ...plan.messages,
    ...validatePlan(plan),
    ...(await checkPlanTree(plan, file)),
    ...readSideState(plan, file, options.sideState).diagnostics,
    ...templates
  ].filter((d) => d.severity === 'error')
  if (problems.length > 0) throw new PlanError(problems)
  return {root, store, plan, templates, notify: notify.targets}
}

/** What `accounts:` caps that `concurrency` would not (docs/limits.md, "Accounts"): said at the run's start. */
function accountWarnings(plan: Plan, options: RunPlanOptions): Diagnostic[] {
  const from = options.concurrency !== undefined ? 'flag' : plan.settings.concurrency !== undefined ? 'front matter' : 'default'
  const value = Math.max(1, options.concurrency ?? plan.settings.concurrency ?? defaultConcurrency)
  return checkAccounts(plan, readHosts(plan, options.host), (agent) => resolveRunner(plan, agent, options.runner, runnerMap), {value, from})
}
