import type {ExecConfig} from '../executor/exec-config.js'
import {defaultBudgetWarn} from '../plan/budget-use.js'
import type {Settings} from '../plan/types.js'
import type {RunPlanOptions} from './run-options.js'

/** The run's budget: `--budget` instead of the front matter's `budget` for this run, with its warning share and what 100 % does. */
export function runBudget(options: Pick<RunPlanOptions, 'budget'>, settings: Settings): ExecConfig['budget'] {
  const limit = options.budget ?? settings.budget
  if (!limit) return undefined
  return {limit, warnAt: settings.budgetWarn ?? defaultBudgetWarn, stop: settings.onBudget === 'stop'}
}
