import {basename, extname, join} from 'node:path'

/** A file-name-safe slug of the plan's name: `plans/Auth Flow.md` → `auth-flow`. */
export function planSlug(planFile: string): string {
  const name = basename(planFile, extname(planFile))
  return name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'plan'
}

/** Where one attempt's full output goes: `.mdplan/logs/<plan>/<agent>.<attempt>.log` under the run's folder. */
export function logFile(cwd: string, planFile: string, agent: string, attempt: number | string): string {
  return join(cwd, '.mdplan', 'logs', planSlug(planFile), `${agent}.${attempt}.log`)
}
