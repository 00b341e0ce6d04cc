import {ownersOf} from './ownership-map.js'

export interface AttributionInput {
  /** The agent that just finished. */
  agent: string
  /** Paths that changed while it ran (`changedSince`). */
  changed: readonly string[]
  /** Declared path → owners (`ownershipMap`). */
  owners: ReadonlyMap<string, readonly string[]>
  /** Every agent that ran at some point during the finishing agent's window, itself included. */
  running: readonly string[]
}

export interface Attribution {
  /** Changed paths the finishing agent declares. */
  own: string[]
  /** Paths only another, idle agent declares, changed while the finishing agent ran alone. */
  violations: Array<{path: string; owner: string}>
  /** Changed paths no agent declares (reported once at the end of the run). */
  undeclared: string[]
  /** Paths another, idle agent declares, changed while several agents ran: we cannot tell who did it. */
  unattributed: Array<{path: string; candidates: string[]}>
}

/**
 * Who changed what during one agent's window. A path goes to the agent that
 * declares it when that agent was running; a path whose owners were all idle
 * is a violation only when the finishing agent was the only one running —
 * with several agents in one working tree we say what cannot be attributed
 * rather than blame the wrong one.
 */
export function attributeChanges(input: AttributionInput): Attribution {
  const result: Attribution = {own: [], violations: [], undeclared: [], unattributed: []}
  const running = input.running.includes(input.agent) ? [...input.running] : [input.agent, ...input.running]
  const alone = running.length === 1
  for (const path of input.changed) {
    const owners = ownersOf(path, input.owners)
    if (owners.includes(input.agent)) result.own.push(path)
    else if (owners.length === 0) result.undeclared.push(path)
    // Another running agent declares it: that agent's own window accounts for it.
    else if (owners.some((owner) => running.includes(owner))) continue
    else if (alone) result.violations.push({path, owner: owners.join(', ')})
    else result.unattributed.push({path, candidates: running})
  }
  return result
}
