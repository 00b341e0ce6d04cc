// What both bins do: load the bundled CLI (with its code cache), run it.
import {dirname} from 'node:path'
import {bundleFile, loadCli} from './load-cli.js'

/** Run the mdplan CLI with `argv` and set the process's exit code. */
export async function start(argv) {
  // `mdplan … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
  let cli
  try {
    ;({cli} = loadCli())
  } catch (error) {
    if (error.code !== 'ENOENT' || error.path !== bundleFile) throw error
    // A checkout that was never built (`npm ci` and `npm install` build it through `prepare`).
    process.stderr.write(`mdplan: ${bundleFile} is missing: run \`npm run build\` (or \`npm ci\`) in ${dirname(dirname(bundleFile))}\n`)
    process.exitCode = 1
    return
  }
  process.exitCode = await cli.main(argv)
}
