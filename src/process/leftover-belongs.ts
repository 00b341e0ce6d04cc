import {readFileSync, readlinkSync, statSync} from 'node:fs'
import {resolve} from 'node:path'
import type {Belonging} from './process-registry.js'

/**
 * Whose a leftover agent named by an older version's registry is, told from
 * the process itself: older versions named the file by a key other plans
 * shared (`Plan.md` and `plan.md` both wrote `plan.agents`; `plan.md.md`
 * wrote `plan.md.agents`, today `plan.md`'s own registry), so the file alone
 * says nothing. An agent's environment names its plan (`MDPLAN_PLAN`, for
 * shell and template runners), or its command line or environment holds the
 * Agent ID its row was given before it started (`--session-id <uuid>` for
 * claude and gemini): `ours` when either is this plan's, `theirs` when the
 * environment names another plan, `unknown` when nothing tells (a runner that
 * learns its ID from the agent's output, a process another user owns).
 */
export function leftoverBelongs(planFile: string, agentIds: ReadonlySet<string>): (pid: number) => Belonging {
  return (pid) => {
    let env: Map<string, string>
    let argv: string[]
    try {
      env = new Map(
        readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .filter((entry) => entry.includes('='))
          .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
      )
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      return 'unknown'
    }
    const named = env.get('MDPLAN_PLAN')
    if (named) return samePlan(resolve(processCwd(pid), named), planFile) ? 'ours' : 'theirs'
    const ids = [env.get('MDPLAN_AGENT_ID') ?? '', ...argv, ...argv.map((arg) => arg.slice(arg.indexOf('=') + 1))]
    return ids.some((id) => id !== '' && agentIds.has(id)) ? 'ours' : 'unknown'
  }
}

function processCwd(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return '/'
  }
}

/** One file: the same inode (through links, a case-folding file system), or the same path when either is gone. */
function samePlan(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)]
    return x.dev === y.dev && x.ino === y.ino
  } catch {
    return resolve(a) === resolve(b)
  }
}
