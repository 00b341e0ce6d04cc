import {createRequire} from 'node:module'
import type * as Dagre from '@dagrejs/dagre'

/** Where each agent of the DAG goes, and its edges as polylines: what the page draws as SVG. */
export interface DagLayout {
  width: number
  height: number
  nodes: Array<{id: string; x: number; y: number; width: number; height: number}>
  edges: Array<{from: string; to: string; points: Array<{x: number; y: number}>}>
}

const cache = new Map<string, DagLayout>()
// Required, not import()ed: the bundled CLI is CommonJS run through vm.Script, which has no import().
let dagre: typeof Dagre | undefined
const node = {width: 120, height: 36}

/**
 * Lay out the DAG of `agents` with dagre (left to right, dependencies first), once per plan shape: statuses
 * change the colours, never the places, so a run of 1,000 agents lays out once. dagre is loaded on the first
 * DAG a page asks for, never when the server starts (a dependency, kept out of the bundle). Edges to agents the plan does not have are left out.
 */
export async function layoutDag(shape: string, agents: ReadonlyArray<{id: string; dependsOn: readonly string[]}>): Promise<DagLayout> {
  const known = cache.get(shape)
  if (known) return known
  dagre ??= createRequire(import.meta.url)('@dagrejs/dagre') as typeof Dagre
  const graph = new dagre.graphlib.Graph()
  graph.setGraph({rankdir: 'LR', nodesep: 14, ranksep: 48, marginx: 8, marginy: 8})
  graph.setDefaultEdgeLabel(() => ({}))
  const ids = new Set(agents.map((agent) => agent.id))
  for (const agent of agents) graph.setNode(agent.id, {...node})
  for (const agent of agents) for (const dependency of agent.dependsOn) if (ids.has(dependency) && dependency !== agent.id) graph.setEdge(dependency, agent.id)
  dagre.layout(graph)
  const size = graph.graph()
  const layout: DagLayout = {
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    nodes: graph.nodes().map((id: string) => {
      const placed = graph.node(id)
      return {id, x: Math.round(placed.x), y: Math.round(placed.y), width: placed.width, height: placed.height}
    }),
    edges: graph.edges().map((edge: {v: string; w: string}) => ({from: edge.v, to: edge.w, points: (graph.edge(edge).points ?? []).map((p: {x: number; y: number}) => ({x: Math.round(p.x), y: Math.round(p.y)}))}))
  }
  // A few shapes at most (one per plan, and the plan's edits): an old one goes when a plan is reshaped often.
  if (cache.size > 32) cache.delete(cache.keys().next().value!)
  cache.set(shape, layout)
  return layout
}
