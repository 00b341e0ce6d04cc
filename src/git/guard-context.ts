import {existsSync, realpathSync} from 'node:fs'
import {relative} from 'node:path'
import type {Agent, Plan} from '../plan/types.js'
import {ownershipMap, type OwnershipMap} from './ownership-map.js'
import type {GitRoot} from './git-root.js'
import type {IgnoreOptions} from './ignored-path.js'
import {sharedSnapshots, type SharedSnapshots} from './shared-snapshots.js'
import {takeSnapshot, type Snapshot} from './take-snapshot.js'
import type {Attribution} from './attribute-changes.js'
import {runningWindows, type RunningWindows} from './running-windows.js'
import {planKey} from '../layout/plan-key.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {withDeclaredBelow} from '../plan/declared-below.js'

/** A launched attempt, as the guard remembers it until its check. */
export interface ActiveAttempt {
  snapshot?: Snapshot
  worktree?: {path: string; branch: string}
  /** An earlier attempt ran (the row had a base): its work on the agent's files is this attempt's too. */
  resumed?: boolean
}

/** What the parts of one run's GitGuard (launch, check, merge) share. */
export interface GuardContext {
  root: string
  /** The run's folder in the repository. */
  prefix: string
  slug: string
  /** The plan's title (its commits' messages name it). */
  title: string
  /** Where a shared-tree agent runs. */
  cwd: string
  strictScope: boolean
  owners: OwnershipMap
  /** The plan and its tree's child plans: written by their own runs, never an agent's change. */
  ignore: IgnoreOptions
  windows: RunningWindows
  /**
   * Launches made together share one snapshot, and a launch right after a check shares the check's: any
   * snapshot started since the tree last changed under no running agent (an agent checked, a commit) serves.
   * A check shares one only if it started after its agent ended (it must see its last write).
   */
  snapshots: SharedSnapshots
  active: Map<string, ActiveAttempt>
  /** Changed paths no agent declares, and changes no agent could be named for: the run's report. */
  undeclared: Set<string>
  unattributed: Attribution['unattributed']
  /** Whether the agent runs in a worktree of its own (`isolation: worktree`). */
  isolated: (agent: Agent) => boolean
  /** Whether the agent's work is committed (`commit: true`). */
  commits: (agent: Agent) => boolean
}

export function createGuardContext(input: {plan: Plan; planFile: string; cwd: string; strictScope: boolean}, location: GitRoot): GuardContext {
  const {root, prefix} = location
  const {plan} = input
  const owners = ownershipMap({...plan, agents: withDeclaredBelow(plan, input.planFile)}, prefix)
  const slug = planKey(input.planFile, root)
  // Child plans (agents whose definition names a plan) are written by their own runs, like the plan.
  // A child run is told the plans of its tree (its parent's, its siblings') in MDPLAN_TREE_PLANS.
  const tree = (process.env.MDPLAN_TREE_PLANS ?? '').split('\n').filter(Boolean)
  const children = [...plan.agents.map((agent) => childPlanPath(input.planFile, agent)), ...tree].filter((path): path is string => path !== undefined && existsSync(path))
  const ignore: IgnoreOptions = {planFile: relative(root, realpathSync(input.planFile)), extra: children.map((path) => relative(root, realpathSync(path)))}
  const setting = (agent: Agent, key: 'isolation' | 'commit'): string | undefined =>
    agent.fields[key]?.value.trim().toLowerCase() ?? (key === 'isolation' ? plan.settings.isolation : plan.settings.commit?.toString())
  return {
    root,
    prefix,
    slug,
    title: plan.title ?? slug,
    cwd: input.cwd,
    strictScope: input.strictScope,
    owners,
    ignore,
    windows: runningWindows(),
    snapshots: sharedSnapshots(() => takeSnapshot(root, ignore)),
    active: new Map(),
    undeclared: new Set(),
    unattributed: [],
    isolated: (agent) => setting(agent, 'isolation') === 'worktree',
    commits: (agent) => ['true', 'yes', 'on'].includes(setting(agent, 'commit') ?? '')
  }
}
