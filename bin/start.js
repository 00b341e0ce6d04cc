// What both bins do: tune V8 for a short, bursty command line program, load the bundled CLI, run it.
import v8 from 'node:v8'

// V8 optimises a function once it has run for a while ("interrupt budget").
// At startup mdplan parses the whole plan once (micromark: thousands of small
// functions, each hot for a few milliseconds), and optimising them costs more
// than it saves: a 200-agent plan's cold parse takes a fifth to a third less
// time when V8 waits longer before optimising (bench/parts/startup.js
// measures it). Loops that stay hot are still optimised. Set before the
// CLI's code is loaded.
v8.setFlagsFromString('--interrupt-budget=1000000')

/** Run the mdplan CLI with `argv` and set the process's exit code. */
export async function start(argv) {
  // `mdplan … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
  const {main} = await import('../dist/mdplan.js')
  process.exitCode = await main(argv)
}
