// Bundle the CLI into one file, dist/mdplan.cjs, which the bins load; then
// make V8's code cache for it (scripts/code-cache.js).
//
// Why: `mdplan run` is on the critical path of every plan. Loaded as separate
// ES modules (about 660 files, most of them micromark's and execa's), Node
// spends about 200 ms resolving and linking them before the first agent can
// start; one file loads in a fraction of that. It is CommonJS because Node 20
// can use a code cache only for a script it compiles through `vm.Script`
// (bin/load-cli.js). `tsc` still type-checks and emits dist/ module by module
// for the benches and tests that import parts.
import {spawnSync} from 'node:child_process'
import {build} from 'esbuild'

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/mdplan.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  // The sources are ES modules, which are strict: keep them so.
  banner: {js: '"use strict";'},
  // bin/load-cli.js passes the bundle's URL in (src/package-root.ts finds package.json from it).
  define: {'import.meta.url': '__mdplanUrl'}
})

// A separate Node: the cache must be made under exactly the flags the bins run with.
const made = spawnSync(process.execPath, ['scripts/code-cache.js'], {stdio: 'inherit'})
if (made.status !== 0) console.warn('scripts/code-cache.js failed: the CLI works, it only starts more slowly')
