// Proof under stress, short version (the long one is `npm run soak`): SIGKILLs with resumes,
// hand saves while a plan runs, parser fuzzing. Under a minute on two cores.
import {killSoak} from '../soak/kill-soak.js'
import {editorSoak} from '../soak/editor-soak.js'
import {fuzz} from '../soak/fuzz.js'

export async function run() {
  const kill = await killSoak({agents: 20, kills: 8, minMs: 20, maxMs: 120, maxKillMs: 800, seed: 1})
  const editors = await editorSoak({agents: 40, edits: 40, gapMs: 40, minMs: 20, maxMs: 150, seed: 2})
  const fuzzed = fuzz({runs: 400, seed: 1})
  return [...kill.rows, ...editors.rows, ...fuzzed.rows]
}
