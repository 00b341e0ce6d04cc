import {localHostName} from '../hosts/host-spec.js'
import {loggedLaunches} from '../layout/logged-launches.js'

/**
 * The keys the rows name (`named`) that are this plan's though they do not begin with its prefix (`own`): runs
 * before the plan's key came from its real path (planKey) keyed it by the path they were given, so a run through
 * a symlink named its jobs by the link's path, and a rerun through the target (or another link) must still go
 * back to them. A key is taken for the plan's only when its run log records launching it here; a key of another
 * plan copied into a row never is. The log is read only when a row names such a key.
 */
export function olderJobKeys(file: string, own: string, named: readonly string[]): string[] {
  const foreign = new Set(named.filter((key) => !key.startsWith(own)))
  if (foreign.size === 0) return []
  const launched = new Set(loggedLaunches(file).flatMap((launch) => ((launch.host ?? localHostName) === localHostName && launch.job !== undefined ? [launch.job] : [])))
  return [...foreign].filter((key) => launched.has(key))
}
