import type {RegisterCommand} from '../command-result.js'
import {setPriority} from 'node:os'
import {exitCodes} from '../../exit-codes.js'

/**
 * `mdplan serve [PLAN|FOLDER ...]`: the page over the plans (docs/serve.md). The server's code is loaded only
 * when this command runs. Runs until Ctrl-C or SIGTERM.
 */
export const registerServe: RegisterCommand = (program, io, done) => {
  program
    .command('serve')
    .description('Serve a live web page over plans: agents, the DAG, logs, open questions to answer, re-queue/retry/skip')
    .argument('[plans...]', 'plan files or folders of plans (default: the plans in the current folder)')
    .option('-p, --port <n>', 'the port (0: any free one, printed)', '8123')
    .option('--host <addr>', 'the address to bind; any but 127.0.0.1 requires a token (printed once in the URL, or MDPLAN_SERVE_TOKEN)', '127.0.0.1')
    .addHelpText('after', '\nExit codes: 0 stopped; 2 no plan to serve, a bad port, or the port is taken.\n')
    .action(async (plans: string[], flags: {port: string; host: string}) => {
      const port = Number(flags.port)
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        io.stderr(`mdplan serve: --port ${flags.port} is not a port (0 to 65535)\n`)
        return done(exitCodes.invalid)
      }
      const {startServer} = await import('../../serve/start-server.js')
      // A page watching a run must never slow it: this process yields the CPU to the run's (docs/serve.md).
      lowerPriority()
      let serving
      try {
        serving = await startServer({plans, cwd: io.cwd, port, host: flags.host, token: io.env.MDPLAN_SERVE_TOKEN || undefined, notify: (message) => io.stderr(`mdplan serve: ${message}\n`)})
      } catch (error) {
        io.stderr(`mdplan serve: ${error instanceof Error ? error.message : String(error)}\n`)
        return done(exitCodes.invalid)
      }
      const names = serving.plans.plans.map((plan) => plan.name)
      io.stdout(`mdplan serve: ${names.length === 1 ? names[0] : `${names.length} plans`} at ${serving.url}\n`)
      io.stdout(`listening on port ${serving.port}; Ctrl-C stops\n`)
      // Until Ctrl-C or SIGTERM: the command's promise is the server's life.
      await new Promise<void>((stopped) => {
        const stop = (): void => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
          void serving.close().then(stopped)
        }
        process.on('SIGINT', stop)
        process.on('SIGTERM', stop)
      })
      done(exitCodes.ok)
    })
}

/** Nice 10: the run's coordinator and agents first; the page's server takes what CPU they leave. */
function lowerPriority(): void {
  try {
    setPriority(10)
  } catch {
    // Not allowed here (some containers): the server runs as it is.
  }
}
