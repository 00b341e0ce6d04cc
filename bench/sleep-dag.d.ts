export interface SleepNode {
  id: string
  deps: string[]
  ms: number
}
export function sleepDag(options: {agents: number; seed?: number; minMs?: number; maxMs?: number; maxDeps?: number; window?: number}): SleepNode[]
export function criticalPathMs(nodes: SleepNode[]): number
export function toPlan(nodes: SleepNode[], options: {concurrency: number}): string
export function toMakefile(nodes: SleepNode[]): string
