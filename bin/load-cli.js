// Load a bundled CLI (dist/mdplan.cjs; dist/mdplan-read.cjs for the read-only
// commands, dist/mdplan-status.cjs for `status`) with V8's code cache for it,
// when one was made for exactly that file. Used by bin/start.js and
// scripts/code-cache.js.
'use strict'
const {isAscii} = require('node:buffer')
const {createHash} = require('node:crypto')
const {readFileSync} = require('node:fs')
const {createRequire} = require('node:module')
const {dirname, join} = require('node:path')
const {pathToFileURL} = require('node:url')
const v8 = require('node:v8')
const vm = require('node:vm')

// V8 optimises a function once it has run for a while ("interrupt budget").
// At startup mdplan parses the whole plan once (micromark: thousands of small
// functions, each hot for a few milliseconds), and optimising them costs more
// than it saves: a 200-agent plan's cold parse takes a fifth to a third less
// time when V8 waits longer before optimising (bench/parts/startup.js
// measures it). Loops that stay hot are still optimised. Set before the CLI
// is compiled: V8 accepts a code cache only under the flags that made it.
v8.setFlagsFromString('--interrupt-budget=1000000')

const bundleFile = join(__dirname, '..', 'dist', 'mdplan.cjs')
/** The small bundle of `status`, `validate` and `graph` (src/cli/read-main.ts): no executor, hosts or execa to load. */
const readBundleFile = join(__dirname, '..', 'dist', 'mdplan-read.cjs')
/** The smallest bundle, of `status` alone (src/cli/status-main.ts). */
const statusBundleFile = join(__dirname, '..', 'dist', 'mdplan-status.cjs')
/** The SHA-1 of the bundles together, written by scripts/bundle.js: the build the parse cache trusts. */
const buildIdFile = join(__dirname, '..', 'dist', 'mdplan.build')

/** Where the code cache of `file` lives: the SHA-1 of the bundle it was made for (20 bytes), then V8's data. */
const cacheFileOf = (file) => `${file}.cache`

/**
 * Compile and run the bundle; returns its exports (`main`), the compiled
 * script (to make a cache from) and the bundle's digest. A cache made for
 * other bytes is never handed to V8 (V8 itself checks only the length of the
 * source, its own version and flags): a stale or foreign cache costs nothing
 * but the time it would have saved.
 */
function loadCli(file = bundleFile) {
  const source = readFileSync(file)
  const digest = createHash('sha1').update(source).digest()
  let cachedData
  try {
    const cache = readFileSync(cacheFileOf(file))
    if (cache.subarray(0, digest.length).equals(digest)) cachedData = cache.subarray(digest.length)
  } catch {
    // No cache (never made, or not writable where the package was installed): compile from source.
  }
  // The CommonJS wrapper Node would add, plus the URL that stands in for `import.meta.url` in the bundle.
  // An ASCII bundle (scripts/bundle.js keeps it so) is read as Latin-1: a copy, and a one-byte string for V8.
  const text = isAscii(source) ? source.toString('latin1') : source.toString('utf8')
  const wrapped = `(function (exports, require, module, __filename, __dirname, __mdplanUrl) {${text}\n})`
  const script = new vm.Script(wrapped, {filename: file, cachedData})
  // Which build runs: the parse cache (src/plan/parse-cache.ts) trusts only what this exact build
  // wrote. One id for all the bundles, so a `status` leaves a parse that `run` takes; a bundle
  // loaded from elsewhere (no id beside it) is its own build.
  globalThis.__mdplanBuild = buildIdOf(file) ?? digest.toString('hex')
  const module = {exports: {}}
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href)
  return {cli: module.exports, script, digest, cacheUsed: cachedData !== undefined && !script.cachedDataRejected}
}

function buildIdOf(file) {
  if (file !== bundleFile && file !== readBundleFile && file !== statusBundleFile) return undefined
  try {
    return readFileSync(buildIdFile, 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

module.exports = {bundleFile, readBundleFile, statusBundleFile, buildIdFile, cacheFileOf, loadCli}
