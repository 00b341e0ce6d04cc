import type {Diagnostic} from '../plan/types.js'
import type {Scorecard} from '../events.js'
import {defaultConcurrency} from '../plan/defaults.js'
import type {Runner} from '../runners/runner.js'
import {ProcessRegistry} from '../process/process-registry.js'
import {registryFile} from '../layout/registry-file.js'
import {endLeftovers} from '../process/end-leftovers.js'
import {trackProcessGroups} from '../process/spawn-agent.js'
import {plural} from '../util/plural.js'
import {startExecState} from './start-exec-state.js'
import {runAgents} from './run-agents.js'
import type {RunSetup} from './run-setup.js'
import {capsInEffect, capsLine} from '../hosts/caps-in-effect.js'
import {readHosts} from '../hosts/read-hosts.js'

/**
 * A run once it holds the plan: the state it starts from, the agent processes a killed run left ended, the
 * run's start said (with the warnings setup kept for then), then the agents run (src/run/run-agents.ts) with
 * their process groups tracked.
 */
export async function executeRun(setup: RunSetup, templates: readonly Diagnostic[]): Promise<{exitCode: number; scorecard: Scorecard}> {
  const {options, plan, store, file, cwd, emit, hosts} = setup
  const concurrency = Math.max(1, options.concurrency ?? plan.settings.concurrency ?? defaultConcurrency)
  const start = await startExecState(setup, templates)
  const {state} = start
  // The executor's agents are the current definitions (they change when a person edits the plan mid-run).
  const runnerFor = (id: string): Runner => setup.runnerOf(state.byId.get(id)!)
  const resumed = state.order.some((id) => state.table.rows.get(id)?.status !== 'pending')
  // Agents a killed run left would work twice beside their relaunch: end them first (an older version's too).
  const agentIds = new Set([...state.table.rows.values()].map((row) => row.agentId).filter((id) => id !== '' && id !== '—'))
  const ended = await endLeftovers({file, target: store.target, cwd, root: (await setup.root)?.root, agentIds})
  // The caps of the accounts the agents still to run will use (docs/limits.md, "Accounts").
  const toRun = [...state.byId.values()].filter((agent) => state.table.rows.get(agent.id)?.status !== 'completed')
  const accounts = capsLine(capsInEffect(plan, readHosts(plan, options.host), setup.runnerOf, toRun))
  emit({type: 'run-started', plan: file, agents: state.order.length, concurrency, resumed, ...(accounts.length > 0 ? {accounts} : {})})
  const runStart = Date.now()
  if (ended.length > 0) emit({type: 'warning', message: `ended ${plural(ended.length, 'agent process group')} a killed run left running (pid ${ended.join(', ')})`})
  for (const message of hosts.warnings) emit({type: 'warning', message})
  trackProcessGroups(new ProcessRegistry(registryFile(store.target)))
  try {
    return await runAgents(setup, {...start, runnerFor, concurrency, runStart})
  } finally {
    trackProcessGroups(undefined)
  }
}
