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
import {isAscii} from 'node:buffer'
import {createHash} from 'node:crypto'
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {build} from 'esbuild'

// Modules evaluated on their first use, not when the bundle loads: the Markdown parser
// (src/plan/micromark-parse.ts: unified, remark, micromark), which src/plan/quick-blocks.ts makes
// needless for most generated plans, and log-update (string-width and its tables), which only
// the live view of a terminal uses. An import of one of these, from the file named, becomes a
// function that `require`s it on its first call, which esbuild bundles as a lazy initialiser of
// the same code: a `status` of a small plan, or a `run --json`, neither runs their modules' top
// level nor needs their functions in the code cache. Only functions can be imported this way.
const lazy = [
  {importer: 'src/plan/parse-markdown.ts', specifier: './micromark-parse.js', target: 'src/plan/micromark-parse.ts', names: ['micromarkParse']},
  {importer: 'src/report/create-reporter.ts', specifier: 'log-update', target: 'log-update', names: ['createLogUpdate']}
]
const lazyImports = {
  name: 'lazy-imports',
  setup(build) {
    build.onResolve({filter: /.*/}, (args) => {
      const entry = lazy.find((l) => args.path === l.specifier && args.importer.endsWith(l.importer))
      return entry ? {path: entry.importer + ' ' + entry.specifier, namespace: 'lazy-import', pluginData: entry} : undefined
    })
    build.onLoad({filter: /.*/, namespace: 'lazy-import'}, ({pluginData: entry}) => {
      const target = entry.target.startsWith('src/') ? join(process.cwd(), entry.target) : entry.target
      const lines = [`let loaded`, `const load = () => (loaded ??= require(${JSON.stringify(target)}))`]
      for (const name of entry.names) lines.push(`export function ${name}(...args) {\n  return load().${name}(...args)\n}`)
      return {contents: lines.join('\n') + '\n', resolveDir: join(process.cwd(), dirname(entry.importer)), loader: 'js'}
    })
  }
}

// Host engines: each engine folder's descriptor (src/hosts/<engine>/<engine>-type.ts) holds the fields it
// takes and their checks, which `validate` reads, and makes its host from the engine's code in its own folder
// (imports of `./…`), which only `run` needs. In the read-only bundles those imports load a stub of the same
// names that throws instead: no read-only command makes a host, and they stay without every engine's code
// (about 170 KB). A descriptor's field checks import from `../` (src/hosts/host-fields.ts), never `./`.
const descriptor = /[\\/]src[\\/]hosts[\\/][^\\/]+[\\/][^\\/]+-type\.ts$/
const engineStubs = {
  name: 'engine-stubs',
  setup(build) {
    build.onResolve({filter: /^\.\//}, (args) =>
      descriptor.test(args.importer) ? {path: join(dirname(args.importer), args.path.replace(/\.js$/, '.ts')), namespace: 'engine-stub'} : undefined
    )
    build.onLoad({filter: /.*/, namespace: 'engine-stub'}, ({path}) => {
      const names = [...readFileSync(path, 'utf8').matchAll(/^export (?:async )?(?:function|const|class) (\w+)/gm)].map((match) => match[1])
      const absent = 'const absent = () => {\n  throw new Error("mdplan: a read-only command made a host")\n}'
      return {contents: [absent, ...names.map((name) => `export const ${name} = absent`)].join('\n') + '\n', loader: 'js'}
    })
  }
}

const bundles = [
  {entry: 'src/cli/main.ts', outfile: 'dist/mdplan.cjs'},
  {entry: 'src/cli/read-main.ts', outfile: 'dist/mdplan-read.cjs', readOnly: true},
  // `status` alone (src/cli/status-main.ts): about half the read-only bundle, and a code cache of
  // what `status` runs only.
  {entry: 'src/cli/status-main.ts', outfile: 'dist/mdplan-status.cjs', readOnly: true}
]

for (const {entry, outfile, readOnly} of bundles) {
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
    // The Kubernetes client is an optional peer dependency, required on first use from where mdplan is installed
    // (src/hosts/kubernetes/kubernetes-client.ts): never in a bundle, so an import of it can never load it at startup.
    // dagre lays out the page's DAG (src/serve/layout-dag.ts): a dependency, required on the first DAG a page asks for.
    external: ['@kubernetes/client-node', '@dagrejs/dagre', '@opentelemetry/*'],
    plugins: readOnly ? [engineStubs, lazyImports] : [lazyImports]
  })
}

// The spawn helper's program and how it is started, for bin/start.js, which starts it for a `run`
// before loading the CLI (src/process/spawn-helper-source.ts).
await build({
  entryPoints: ['src/process/spawn-helper-source.ts'],
  outfile: 'dist/spawn-helper-source.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  banner: {js: '"use strict";'}
})

// bin/load-cli.js reads an ASCII bundle as Latin-1, a copy; any other character makes it decode
// UTF-8 and hand V8 a two-byte string (about 10 ms more for the whole CLI). esbuild escapes
// strings but not regular expressions: write such characters in those as \\uXXXX.
for (const {outfile} of bundles) {
  if (!isAscii(readFileSync(outfile))) console.warn(`${outfile} is not ASCII: it loads more slowly (a regular expression with a non-ASCII character?)`)
}

const id = createHash('sha1')
for (const {outfile} of bundles) id.update(readFileSync(outfile))
writeFileSync('dist/mdplan.build.tmp', `${id.digest('hex')}\n`)
renameSync('dist/mdplan.build.tmp', 'dist/mdplan.build')

// A separate Node: the cache must be made under exactly the flags the bins run with.
const made = spawnSync(process.execPath, ['scripts/code-cache.js'], {stdio: 'inherit'})
if (made.status !== 0) console.warn('scripts/code-cache.js failed: the CLI works, it only starts more slowly')
