/** Types for generate-plan.js (used by tests as well as benches). */
export function agentId(index: number): string
export function generatePlan(options: {
  agents: number
  withState?: boolean
  shell?: boolean
  sleepMs?: number
  outDir?: string
  seed?: number
  maxDeps?: number
  window?: number
  failEvery?: number
  concurrency?: number
}): string
