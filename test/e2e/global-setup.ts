import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {findRealPlansDir, realPlansMissing} from '../helpers/find-real-plans.js'

/**
 * Tests that spawn `bin/mdplan.js` need a fresh `dist/` and `dist/mdplan.js`:
 * build once per test run, with the package's own build script (tsc, then the bundle).
 */
export default function setup(): void {
  // The tests that read the real plans skip them (and run on our own plans in their shapes): said once for the run.
  if (findRealPlansDir() === undefined) process.stdout.write(`mdplan tests: ${realPlansMissing}\n`)
  if (process.env.MDPLAN_SKIP_BUILD) return
  const root = fileURLToPath(new URL('../..', import.meta.url))
  // The build is silent and takes a while on a busy machine: say what the wait is before it starts.
  process.stdout.write('mdplan tests: building dist/ first (tsc, then the bundle: about 15 s on a quiet machine, 30 s or more on a busy one); MDPLAN_SKIP_BUILD=1 skips it\n')
  const started = Date.now()
  execFileSync('npm', ['run', '--silent', 'build'], {cwd: root, stdio: 'inherit'})
  process.stdout.write(`mdplan tests: built in ${((Date.now() - started) / 1000).toFixed(1)} s; now the tests\n`)
}
