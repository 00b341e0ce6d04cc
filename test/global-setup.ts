import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

/**
 * Tests that spawn `bin/mdplan.js` need a fresh `dist/` and `dist/mdplan.js`:
 * build once per test run, with the package's own build script (tsc, then the bundle).
 */
export default function setup(): void {
  if (process.env.MDPLAN_SKIP_BUILD) return
  const root = fileURLToPath(new URL('..', import.meta.url))
  execFileSync('npm', ['run', '--silent', 'build'], {cwd: root, stdio: 'inherit'})
}
