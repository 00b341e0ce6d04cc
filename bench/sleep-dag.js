// A seeded random DAG of sleeping agents, written both as a shell-runner plan and as a Makefile of the same graph.
import {random} from './random.js'

/**
 * `agents` nodes; each depends on up to `maxDeps` of the `window` nodes before it,
 * sleeps between `minMs` and `maxMs`.
 */
export function sleepDag({agents, seed = 1, minMs = 100, maxMs = 1000, maxDeps = 2, window = 40}) {
  const rand = random(seed)
  const nodes = []
  for (let index = 0; index < agents; index++) {
    const deps = new Set()
    const count = index === 0 ? 0 : Math.floor(rand() * (maxDeps + 1))
    for (let k = 0; k < count; k++) deps.add(Math.max(0, index - 1 - Math.floor(rand() * Math.min(window, index))))
    const ms = Math.round(minMs + rand() * (maxMs - minMs))
    nodes.push({id: `T${index}`, deps: [...deps].sort((a, b) => a - b).map((d) => `T${d}`), ms})
  }
  return nodes
}

/** The longest chain of sleeps: no scheduler can finish sooner. */
export function criticalPathMs(nodes) {
  const finish = new Map()
  for (const node of nodes) finish.set(node.id, node.ms + Math.max(0, ...node.deps.map((d) => finish.get(d))))
  return Math.max(...finish.values())
}

export function toPlan(nodes, {concurrency}) {
  const lines = ['---', 'runner: shell', `concurrency: ${concurrency}`, '---', '', '# Parallel Plan: sleep DAG', '', '## Agents', '']
  for (const node of nodes) {
    lines.push(`### ${node.id}: sleep-${node.ms}`)
    lines.push(`- **depends_on**: [${node.deps.join(', ')}]`)
    lines.push(`- **estimated_duration**: ${node.ms}ms`)
    lines.push(`- **prompt**: |`, `    sleep ${(node.ms / 1000).toFixed(3)}`, '')
  }
  lines.push('## Execution State', '', '| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|')
  for (const node of nodes) lines.push(`| ${node.id} | pending | — | — | |`)
  lines.push('', 'Started: —', 'Last updated: —', 'Build: not yet run', '')
  return lines.join('\n')
}

export function toMakefile(nodes) {
  const lines = ['.PHONY: all ' + nodes.map((n) => n.id).join(' '), `all: ${nodes.map((n) => n.id).join(' ')}`, '']
  for (const node of nodes) lines.push(`${node.id}: ${node.deps.join(' ')}`, `\t@sleep ${(node.ms / 1000).toFixed(3)}`, '')
  return lines.join('\n')
}
