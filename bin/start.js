'use strict'
// What both bins do: load the bundled CLI (with its code cache), run it.
// CommonJS (bin/package.json), as is all of bin/: an ES module entry costs Node
// its module loader and a facade of every built-in it imports, about 6 ms of
// every start (`mdplan status` of a small plan is mostly start).
const {dirname} = require('node:path')
const {bundleFile, loadCli, readBundleFile, statusBundleFile} = require('./load-cli.js')

// The commands that only read a plan run from a bundle of their own, a fraction
// of the whole (src/cli/read-commands.ts lists the same names): `mdplan status`
// of a small plan is mostly the time to load the CLI.
const readCommands = new Set(['status', 'validate', 'graph'])

/** Run the mdplan CLI with `argv` and set the process's exit code. */
async function start(argv) {
  // `mdplan … | head` closes the pipe early: that is the reader's choice, not an error, and
  // never the end of a run (agents keep running, rows keep being written, the lock is released
  // as usual): what would have gone to the closed stream is dropped. A closed terminal is the
  // same (EIO once it hung up): the SIGHUP that came with it is stopping the run, and that
  // shutdown must not die on its own last words.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error
      stream.write = (_chunk, encoding, callback) => {
        const done = typeof encoding === 'function' ? encoding : callback
        if (typeof done === 'function') queueMicrotask(done)
        return true
      }
    })
  }
  // The same rule as src/cli/run-cli.ts: the first word that is not an option names the command.
  const name = argv.find((arg) => !arg.startsWith('-'))
  if (name === 'run') closeHungUpTerminalsAtExit()
  let cli
  try {
    if (name === 'run' && !argv.some((arg) => arg === '-h' || arg === '--help' || arg === '--dry-run')) startSpawnHelper()
    // MDPLAN_READ_BUNDLE=0 runs them from the whole CLI (the bench compares the two).
    cli = readCommands.has(name) && process.env.MDPLAN_READ_BUNDLE !== '0' ? loadReadCli(name) : loadCli().cli
  } catch (error) {
    if (error.code !== 'ENOENT' || error.path !== bundleFile) throw error
    // A checkout that was never built (`npm ci` and `npm install` build it through `prepare`).
    process.stderr.write(`mdplan: ${bundleFile} is missing: run \`npm run build\` (or \`npm ci\`) in ${dirname(dirname(bundleFile))}\n`)
    process.exitCode = 1
    return
  }
  process.exitCode = await cli.main(argv)
}

/**
 * At exit Node puts a terminal's settings back, and aborts (exit 134, no matter what the run
 * decided) when the terminal hung up under it: a closed window or a dropped ssh session answers
 * EIO. A descriptor that was a terminal and no longer is one is closed first, so Node skips it.
 * Only for a run (the one command a hang-up stops midway): the read commands keep their start small.
 */
function closeHungUpTerminalsAtExit() {
  const {isatty} = require('node:tty')
  const {closeSync} = require('node:fs')
  const terminals = [0, 1, 2].filter((fd) => isatty(fd))
  process.on('exit', () => {
    for (const fd of terminals) {
      try {
        if (!isatty(fd)) closeSync(fd)
      } catch {
        // Already closed.
      }
    }
  })
}

/**
 * Start the spawn helper (src/process/spawn-helper.ts) now, for a run: it is a Node of its own, and
 * booting it beside the CLI's loading and the plan's parse, not after them, keeps it off the way to
 * the first launch. The CLI takes it over (globalThis.__mdplanSpawnHelper), or starts its own if it
 * is gone; until then it keeps nothing alive, and it exits when mdplan does.
 */
function startSpawnHelper() {
  if (process.env.MDPLAN_SPAWN_HELPER === '0') return
  let helper
  try {
    const {spawnHelperSource, spawnHelperOptions} = require('../dist/spawn-helper-source.cjs')
    helper = require('node:child_process').spawn(process.execPath, ['-e', spawnHelperSource], spawnHelperOptions(process.env))
  } catch {
    // A build without it: the CLI starts the helper itself.
    return
  }
  helper.on('error', () => {})
  helper.unref()
  helper.channel?.unref()
  globalThis.__mdplanSpawnHelper = helper
}

/**
 * `status`'s own bundle, else the read-only one, else the whole CLI: the first of them the build
 * made (each larger one has every command of the smaller).
 */
function loadReadCli(name) {
  for (const file of name === 'status' ? [statusBundleFile, readBundleFile] : [readBundleFile]) {
    try {
      return loadCli(file).cli
    } catch (error) {
      if (error.code !== 'ENOENT' || error.path !== file) throw error
    }
  }
  return loadCli().cli
}

module.exports = {start}
