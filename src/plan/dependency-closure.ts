import type {Agent} from './types.js'

/** Transitive hard dependencies of every agent, answered in O(1) per question. */
export interface DependencyClosure {
  /** Whether `a` depends on `b`, directly or through others (hard dependencies only). */
  dependsOn: (a: string, b: string) => boolean
  /** Whether `a` and `b` may run at the same time: neither depends on the other. */
  concurrent: (a: string, b: string) => boolean
  /** Every agent `id` depends on, directly or not, in plan order. */
  ancestors: (id: string) => string[]
}

/**
 * The transitive closure of `depends_on`, one bitset per agent. Soft
 * dependencies are left out on purpose: they only order work while their
 * files are missing, so they do not keep two agents apart. Unknown ids are
 * ignored and cycles do not loop (both are validation errors of their own).
 */
export function dependencyClosure(agents: readonly Agent[]): DependencyClosure {
  const index = new Map<string, number>()
  for (const agent of agents) if (!index.has(agent.id)) index.set(agent.id, index.size)
  const words = Math.ceil(index.size / 32) || 1
  const bits: Array<Uint32Array | undefined> = new Array(index.size)
  const visiting = new Uint8Array(index.size)
  const byIndex: Agent[] = []
  for (const agent of agents) if (byIndex[index.get(agent.id)!] === undefined) byIndex[index.get(agent.id)!] = agent

  const closure = (i: number): Uint32Array => {
    const known = bits[i]
    if (known) return known
    const set = new Uint32Array(words)
    if (visiting[i]) return set
    visiting[i] = 1
    for (const ref of byIndex[i]!.dependsOn) {
      const j = index.get(ref.id)
      if (j === undefined || j === i) continue
      set[j >> 5]! |= 1 << (j & 31)
      const inherited = closure(j)
      for (let w = 0; w < words; w++) set[w]! |= inherited[w]!
    }
    visiting[i] = 0
    bits[i] = set
    return set
  }

  const dependsOn = (a: string, b: string): boolean => {
    const i = index.get(a)
    const j = index.get(b)
    if (i === undefined || j === undefined) return false
    return (closure(i)[j >> 5]! & (1 << (j & 31))) !== 0
  }

  return {
    dependsOn,
    concurrent: (a, b) => a !== b && !dependsOn(a, b) && !dependsOn(b, a),
    ancestors: (id) => {
      const i = index.get(id)
      if (i === undefined) return []
      const set = closure(i)
      return byIndex.filter((_, j) => (set[j >> 5]! & (1 << (j & 31))) !== 0).map((agent) => agent.id)
    }
  }
}
