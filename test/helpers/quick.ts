/**
 * How many runs (or writes, or agents) a heavy test takes: `full` in `npm test`, `quick` in the inner loop
 * (`npm run test:unit` sets MDPLAN_QUICK=1). FUZZ_RUNS, where a test reads it, overrides both.
 */
export function sized(full: number, quick: number): number {
  return process.env.MDPLAN_QUICK ? quick : full
}
