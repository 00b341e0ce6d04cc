import {access, constants, stat} from 'node:fs/promises'
import {delimiter, isAbsolute, join, resolve} from 'node:path'
import type {Diagnostic, Plan} from '../plan/types.js'
import type {Runner} from './runner.js'
import {executableOf} from './executable-of.js'
import {runnerPlace} from './runner-place.js'

/**
 * Before anything launches: is every runner the plan needs installed? One
 * error per missing executable, naming the agents that need it and what to
 * install. Honours the `MDPLAN_*_BIN` overrides.
 */
export async function checkRunners(
  plan: Plan,
  runners: ReadonlyMap<string, Runner>,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  /** The `--runner` flag, when the run has one: then no line of the plan chose the runner. */
  flag?: string
): Promise<Diagnostic[]> {
  const byExecutable = new Map<string, {runner: Runner; agents: string[]}>()
  for (const agent of plan.agents) {
    const runner = runners.get(agent.id)
    if (!runner) continue
    const executable = executableOf(runner, env)
    if (executable === undefined) continue
    const key = `${runner.name}\u0000${executable}`
    const entry = byExecutable.get(key) ?? {runner, agents: []}
    entry.agents.push(agent.id)
    byExecutable.set(key, entry)
  }
  const messages: Diagnostic[] = []
  const found = await Promise.all(
    [...byExecutable.entries()].map(async ([key, entry]) => ({key, entry, ok: await isInstalled(key.split('\u0000')[1]!, env, cwd)}))
  )
  for (const {key, entry, ok} of found) {
    if (ok) continue
    const executable = key.split('\u0000')[1]!
    const {runner, agents} = entry
    const who = agents.length === 1 ? `agent ${agents[0]} uses` : `agents ${agents.join(', ')} use`
    const override = runner.executableEnv && env[runner.executableEnv] ? ` (from ${runner.executableEnv})` : ''
    const install = runner.install ? `: ${runner.install}` : ''
    const first = plan.agents.find((agent) => agent.id === agents[0])
    messages.push({
      severity: 'error',
      rule: 'runner-not-installed',
      reason: `${who} the ${runner.name} runner, but \`${executable}\`${override} is not installed${install}`,
      file: plan.file,
      place: runnerPlace(plan, first, flag)
    })
  }
  return messages
}

/** A PATH lookup (or, for a path, a check of that file) for an executable file. */
export async function isInstalled(executable: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<boolean> {
  if (executable.includes('/')) return isExecutable(isAbsolute(executable) ? executable : resolve(cwd, executable))
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    if (await isExecutable(join(dir, executable))) return true
  }
  return false
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK)
    // A folder is "executable" too.
    return (await stat(file)).isFile()
  } catch {
    return false
  }
}
