import {describe, expect, it} from 'vitest'
import {dagreLimit, layoutDag} from '../../../src/serve/layout-dag.js'
import {layeredLayout} from '../../../src/serve/layered-layout.js'
import {planShape} from '../../../src/serve/plan-view.js'

const diamond = [
  {id: 'A', dependsOn: []},
  {id: 'B', dependsOn: ['A']},
  {id: 'C', dependsOn: ['A', 'gone']},
  {id: 'D', dependsOn: ['B', 'C']}
]

/** 1,000 agents, each on up to two of the 20 before it. */
function big(n: number): Array<{id: string; dependsOn: string[]}> {
  let seed = 7
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648)
  return Array.from({length: n}, (_, i) => ({id: `A${i}`, dependsOn: i === 0 ? [] : [`A${Math.max(0, i - 1 - Math.floor(next() * 20))}`, `A${Math.max(0, i - 1 - Math.floor(next() * 20))}`]}))
}

describe('the DAG layout', () => {
  it('dagre lays out a small plan, left to right, dependencies first; an edge to an agent the plan lacks is left out', async () => {
    const layout = await layoutDag(planShape(diamond), diamond)
    expect(layout.by).toBe('dagre')
    const x = Object.fromEntries(layout.nodes.map((node) => [node.id, node.x]))
    expect(x.A).toBeLessThan(x.B!)
    expect(x.B).toBeLessThan(x.D!)
    expect(layout.edges.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(['A>B', 'A>C', 'B>D', 'C>D'])
    // Once per shape: the same promise's layout.
    expect(await layoutDag(planShape(diamond), diamond)).toBe(layout)
  })

  it('a plan over the limit gets the linear layered layout: 1,000 agents in well under two seconds, columns by longest chain', async () => {
    const agents = big(1000)
    expect(agents.length).toBeGreaterThan(dagreLimit)
    const started = performance.now()
    const layout = await layoutDag(planShape(agents), agents)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(layout.by).toBe('layered')
    expect(layout.nodes).toHaveLength(1000)
    const x = new Map(layout.nodes.map((node) => [node.id, node.x]))
    for (const agent of agents) for (const dep of agent.dependsOn) if (dep !== agent.id) expect(x.get(dep)!).toBeLessThan(x.get(agent.id)!)
  })

  it('layered: each agent one column right of its longest chain, none overlapping', () => {
    const layout = layeredLayout(diamond)
    const at = Object.fromEntries(layout.nodes.map((node) => [node.id, node]))
    expect([at.A!.x, at.B!.x, at.D!.x]).toEqual([68, 236, 404])
    expect(at.B!.x).toBe(at.C!.x)
    expect(at.B!.y).not.toBe(at.C!.y)
    expect(layout.edges).toHaveLength(4)
  })
})
