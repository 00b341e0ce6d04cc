// Bundle the CLI into one file, dist/mdplan.js, which the bins load.
//
// Why: `mdplan run` is on the critical path of every plan. Loaded as separate
// ES modules (about 660 files, most of them micromark's and execa's), Node
// spends about 200 ms resolving and linking them before the first agent can
// start; one file loads in a fraction of that. `tsc` still type-checks and
// emits dist/ module by module for the benches and tests that import parts.
import {build} from 'esbuild'

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/mdplan.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  // Some dependencies are CommonJS and `require` Node's built-ins; an ES module has no `require` of its own.
  banner: {js: "import {createRequire as __mdplanRequire} from 'node:module'; const require = __mdplanRequire(import.meta.url);"}
})
