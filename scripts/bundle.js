// Bundle the CLI into two files the bins load: dist/mdplan.cjs (every command)
// and dist/mdplan-read.cjs (`status`, `validate`, `graph`: a fraction of the
// size, without the executor, the hosts, execa or log-update); write their
// joint SHA-1 to dist/mdplan.build (the build the parse cache trusts); then
// make V8's code cache for each (scripts/code-cache.js).
//
// Why: `mdplan run` is on the critical path of every plan. Loaded as separate
// ES modules (about 660 files, most of them micromark's and execa's), Node
// spends about 200 ms resolving and linking them before the first agent can
// start; one file loads in a fraction of that. It is CommonJS because Node 20
// can use a code cache only for a script it compiles through `vm.Script`
// (bin/load-cli.js). A second, smaller bundle for the read-only commands,
// because loading (reading, hashing, deserialising the code cache) grows with
// the bundle, and for `status` of a small plan loading is most of the time.
// `tsc` still type-checks and emits dist/ module by module for the benches
// and tests that import parts.
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {build} from 'esbuild'

// The Markdown parser (src/plan/micromark-parse.ts: unified, remark, micromark) is evaluated on
// its first use, not when the bundle loads: src/plan/quick-blocks.ts reads most generated plans
// without it, and a `status` of a small plan then neither runs its modules' top level nor needs
// its functions in the code cache. parse-markdown.ts's import of it becomes a `require` that
// esbuild turns into a lazy initialiser of the same code.
const lazyParser = {
  name: 'lazy-micromark-parse',
  setup(build) {
    build.onResolve({filter: /\/micromark-parse\.js$/}, (args) =>
      args.importer.endsWith('parse-markdown.ts') ? {path: join(dirname(args.importer), 'micromark-parse.ts'), namespace: 'lazy-micromark-parse'} : undefined
    )
    build.onLoad({filter: /.*/, namespace: 'lazy-micromark-parse'}, (args) => ({
      contents: `let parser\nexport function micromarkParse(text, lean) {\n  parser ??= require(${JSON.stringify(args.path)})\n  return parser.micromarkParse(text, lean)\n}\n`,
      resolveDir: dirname(args.path),
      loader: 'js'
    }))
  }
}

const bundles = [
  {entry: 'src/cli/main.ts', outfile: 'dist/mdplan.cjs'},
  {entry: 'src/cli/read-main.ts', outfile: 'dist/mdplan-read.cjs'}
]

for (const {entry, outfile} of bundles) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
    // A third less to read, hash and hold at every start. Identifiers are not minified: names
    // stay what the sources say (in errors, stack traces and profiles), and esbuild's keepNames
    // would cost a defineProperty on every closure made in a hot loop (seconds at 1000 agents).
    minifyWhitespace: true,
    minifySyntax: true,
    // The sources are ES modules, which are strict: keep them so.
    banner: {js: '"use strict";'},
    // bin/load-cli.js passes the bundle's URL in (src/package-root.ts finds package.json from it).
    define: {'import.meta.url': '__mdplanUrl'},
    plugins: [lazyParser]
  })
}

const id = createHash('sha1')
for (const {outfile} of bundles) id.update(readFileSync(outfile))
writeFileSync('dist/mdplan.build.tmp', `${id.digest('hex')}\n`)
renameSync('dist/mdplan.build.tmp', 'dist/mdplan.build')

// A separate Node: the cache must be made under exactly the flags the bins run with.
const made = spawnSync(process.execPath, ['scripts/code-cache.js'], {stdio: 'inherit'})
if (made.status !== 0) console.warn('scripts/code-cache.js failed: the CLI works, it only starts more slowly')
