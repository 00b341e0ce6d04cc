import type {RunPlanOptions} from './run-options.js'

/** The flags a child plan's run inherits from its parent's (its concurrency is its share of the cap). */
export function childArgs(options: RunPlanOptions, cwd: string): string[] {
  const args = ['--cwd', cwd]
  if (options.runner) args.push('--runner', options.runner)
  if (options.maxAttempts) args.push('--max-attempts', String(options.maxAttempts))
  if (options.agentTimeoutMs) args.push('--agent-timeout', `${Math.ceil(options.agentTimeoutMs / 1000)}s`)
  if (options.maxPauseMs) args.push('--max-pause', `${Math.ceil(options.maxPauseMs / 1000)}s`)
  if (options.waitForReset) args.push('--wait-for-reset')
  if (options.failFast) args.push('--fail-fast')
  if (options.strictScope) args.push('--strict-scope')
  return args
}
