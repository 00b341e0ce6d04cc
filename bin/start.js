// What both bins do: load the bundled CLI (with its code cache), run it.
import {loadCli} from './load-cli.js'

/** Run the mdplan CLI with `argv` and set the process's exit code. */
export async function start(argv) {
  // `mdplan … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
  const {cli} = loadCli()
  process.exitCode = await cli.main(argv)
}
