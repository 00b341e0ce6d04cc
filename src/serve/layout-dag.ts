import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'
import type {DagLayout} from './dag-layout.js'
import {layeredLayout} from './layered-layout.js'

export type {DagLayout} from './dag-layout.js'

const cache = new Map<string, Promise<DagLayout>>()

/**
 * The most agents dagre lays out. Its crossing reduction grows fast: about 1.5 s at 100 agents and a minute at
 * 1,000 on a busy machine, which would take a core from the run. Larger plans get the linear layered layout.
 */
export const dagreLimit = 150

type Agents = ReadonlyArray<{id: string; dependsOn: readonly string[]}>

/**
 * Lay out the DAG of `agents`, once per plan shape: statuses change the colours, never the places. dagre runs in
 * a worker thread (the server goes on answering meanwhile), loaded only when a page first asks for a DAG; a plan
 * over `dagreLimit` agents, or a failed dagre, gets `layeredLayout`. Edges to agents the plan lacks are left out.
 */
export function layoutDag(shape: string, agents: Agents): Promise<DagLayout> {
  let layout = cache.get(shape)
  if (!layout) {
    layout = agents.length > dagreLimit ? Promise.resolve({...layeredLayout(agents), by: 'layered' as const}) : dagreInWorker(agents).catch(() => ({...layeredLayout(agents), by: 'layered' as const}))
    // A few shapes at most (one per plan, and the plan's edits): the oldest goes when a plan is reshaped often.
    if (cache.size > 32) cache.delete(cache.keys().next().value!)
    cache.set(shape, layout)
  }
  return layout
}

// The worker's program: CommonJS, given dagre's resolved path (the CLI is one bundle; dagre stays outside it).
const program = `
const {parentPort, workerData} = require('node:worker_threads')
const dagre = require(workerData.dagre)
const graph = new dagre.graphlib.Graph()
graph.setGraph({rankdir: 'LR', nodesep: 14, ranksep: 48, marginx: 8, marginy: 8})
graph.setDefaultEdgeLabel(() => ({}))
const ids = new Set(workerData.agents.map((agent) => agent.id))
for (const agent of workerData.agents) graph.setNode(agent.id, {width: 120, height: 36})
for (const agent of workerData.agents) for (const dep of agent.dependsOn) if (ids.has(dep) && dep !== agent.id) graph.setEdge(dep, agent.id)
dagre.layout(graph)
const size = graph.graph()
const round = (p) => ({x: Math.round(p.x), y: Math.round(p.y)})
parentPort.postMessage({
  width: Math.ceil(size.width || 0), height: Math.ceil(size.height || 0), by: 'dagre',
  nodes: graph.nodes().map((id) => { const n = graph.node(id); return {id, ...round(n), width: n.width, height: n.height} }),
  edges: graph.edges().map((e) => ({from: e.v, to: e.w, points: (graph.edge(e).points || []).map(round)}))
})
`

function dagreInWorker(agents: Agents): Promise<DagLayout> {
  const dagre = createRequire(import.meta.url).resolve('@dagrejs/dagre')
  return new Promise((resolve, reject) => {
    const worker = new Worker(program, {eval: true, workerData: {dagre, agents: agents.map(({id, dependsOn}) => ({id, dependsOn: [...dependsOn]}))}})
    worker.once('message', (layout: DagLayout) => {
      resolve(layout)
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the layout worker exited (${code})`)))
  })
}
