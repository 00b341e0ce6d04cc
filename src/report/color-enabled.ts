/**
 * Whether to paint output: never with `NO_COLOR` (no-color.org), always with
 * `FORCE_COLOR` (other than `0`), otherwise only on a terminal that is not `dumb`.
 */
export function colorEnabled(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return isTTY && env.TERM !== 'dumb'
}
