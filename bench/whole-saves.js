#!/usr/bin/env node
// The store part's whole-run saves soak alone, `n` times (default 1): a 1000-agent run with a save every
// second (sed -i and an editor's temp + rename in turn). Prints, per run: writes given up / reruns / saved lines lost.
// `node bench/whole-saves.js 20` (after `npm run build`).
import {savesSoak} from './soak/saves-soak.js'

const runs = Number(process.argv[2] ?? 1)
const totals = {failed: 0, reruns: 0, lost: 0, saves: 0}
for (let i = 1; i <= runs; i++) {
  const r = await savesSoak({agents: 1000, everyMs: 1000, saver: 'both', concurrency: 16, minMs: 10, maxMs: 30, keep: process.env.KEEP === '1'})
  totals.failed += r.failedWrites.length
  totals.reruns += r.reruns.length
  totals.lost += r.lost.length
  totals.saves += r.saves
  console.log(`run ${i}: given up ${r.failedWrites.length} / reruns ${r.reruns.length} / lost ${r.lost.length} (${r.saves} saves, ${r.completed}/${r.agents} completed in ${r.seconds.toFixed(1)} s, exit ${r.exitCode}${r.lost.length ? `; lost: ${r.lost.join(', ')}` : ''})`)
}
console.log(`${runs} runs: given up ${totals.failed} / reruns ${totals.reruns} / lost ${totals.lost} (${totals.saves} saves)`)
