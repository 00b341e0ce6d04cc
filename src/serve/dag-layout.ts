/** Where each agent of the DAG goes, and its edges as polylines: what the page draws as SVG. */
export interface DagLayout {
  width: number
  height: number
  nodes: Array<{id: string; x: number; y: number; width: number; height: number}>
  edges: Array<{from: string; to: string; points: Array<{x: number; y: number}>}>
  /** Which layout made it: dagre, or the linear layered one of a plan too large for dagre. */
  by?: 'dagre' | 'layered'
}
