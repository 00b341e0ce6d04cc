import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

/** Tests that spawn `bin/mdplan.js` need a fresh `dist/` and `dist/mdplan.js`: build once per test run. */
export default function setup(): void {
  if (process.env.MDPLAN_SKIP_BUILD) return
  const root = fileURLToPath(new URL('..', import.meta.url))
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {cwd: root, stdio: 'inherit'})
  // The bins load the bundle, not the modules tsc wrote.
  execFileSync(process.execPath, ['scripts/bundle.js'], {cwd: root, stdio: 'inherit'})
}
