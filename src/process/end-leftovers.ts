import {appendFileSync, existsSync, readFileSync, rmSync} from 'node:fs'
import {relative} from 'node:path'
import {isAlive} from '../store/is-alive.js'
import {endRecordedGroups} from './process-registry.js'
import {leftoverBelongs} from './leftover-belongs.js'
import {legacyRegistryFiles, olderRegistryFile, registryFile} from '../layout/registry-file.js'

/**
 * Agents an earlier run left that may be this plan's and cannot be told
 * apart from another plan's: mdplan will not run beside them (exit 3).
 */
export class LeftoverAgentsError extends Error {
  readonly code = 'ELEFTOVER'
  constructor(
    readonly planFile: string,
    readonly pids: number[],
    readonly files: string[]
  ) {
    const groups = pids.map((pid) => `-${pid}`).join(' ')
    super(
      `${planFile}: ${pids.length === 1 ? 'an agent process' : 'agent processes'} an earlier mdplan left running (pid ${pids.join(', ')}, on record in ${files.join(', ')}) may be this plan's, and nothing tells whose they are; nothing was launched, so that no agent runs beside itself. ` +
        `If they are this plan's, or you do not need them, end them (\`kill -TERM -- ${groups}\`) and run again; if they are another plan's (one run from the same folder), run that plan first: it ends them`
    )
    this.name = 'LeftoverAgentsError'
  }
}

/**
 * End what a killed run of this plan left running, before anything launches:
 * the groups in its registry (`registryFile`), and those an older version
 * kept under the folder its run started in (`legacyRegistryFiles`), which may
 * be another plan's too (only this plan's are ended, told by each process:
 * `leftoverBelongs`). Returns the pids ended. Throws LeftoverAgentsError when
 * a live group may be this plan's and nothing says so either way, or when a
 * run that lost this plan's lock has not ended its agents within `waitMs`.
 */
export async function endLeftovers(input: {file: string; target?: string; cwd: string; root: string | undefined; agentIds: ReadonlySet<string>; waitMs?: number}): Promise<number[]> {
  const {file} = input
  const belongs = leftoverBelongs(file, input.agentIds)
  // Beside the file the plan was opened through (a link replaced since still has its registry there).
  const current = registryFile(input.target ?? file)
  const own = await endRecordedGroups(current, {belongs})
  // A run that lost this lock (its folder was removed) and still lives ends its own agents: wait for them.
  const deadline = Date.now() + (input.waitMs ?? 15_000)
  while (own.live.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  const ended = [...own.ended]
  const unknown = new Map<number, string>([...own.live.filter(isAlive), ...own.unknown].map((pid) => [pid, current]))
  // An older version's run of another plan wrote this name (plan.md.md's key was plan.md): its leftovers move
  // aside for that plan's rerun (legacyRegistryFiles looks there), and this run's registry starts empty.
  if (own.theirs.length > 0) moveAside(current, olderRegistryFile(current))
  for (const legacy of legacyRegistryFiles(file, input.cwd, input.root)) {
    if (legacy === current || !existsSync(legacy)) continue
    const found = await endRecordedGroups(legacy, {belongs, legacy: true})
    ended.push(...found.ended)
    for (const pid of found.unknown) unknown.set(pid, legacy)
  }
  if (unknown.size > 0) {
    const files = [...new Set(unknown.values())].map((path) => relative(input.cwd, path) || path)
    throw new LeftoverAgentsError(relative(input.cwd, file) || file, [...unknown.keys()], files)
  }
  return ended
}

function moveAside(file: string, aside: string): void {
  try {
    appendFileSync(aside, readFileSync(file))
    rmSync(file, {force: true})
  } catch {
    // Left where it is: this run's registry then follows it in the same file.
  }
}
