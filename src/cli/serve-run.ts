import type {Io} from './io.js'

/**
 * `mdplan run --serve`: the page over the plan being run, for as long as the run goes on; the URL goes to stderr
 * (stdout may be the run's JSON events). Resolves to a function that stops the server, or undefined when it could
 * not start (the run goes on without it: the page is a view, never a reason to stop work).
 */
export async function serveRun(file: string, port: string | undefined, io: Io): Promise<(() => Promise<void>) | undefined> {
  const {startServer} = await import('../serve/start-server.js')
  try {
    const serving = await startServer({plans: [file], cwd: io.cwd, port: port === undefined ? 0 : Number(port), token: io.env.MDPLAN_SERVE_TOKEN || undefined})
    io.stderr(`mdplan: serving this run at ${serving.url}\n`)
    return () => serving.close()
  } catch (error) {
    io.stderr(`mdplan: cannot serve the run's page (${error instanceof Error ? error.message : String(error)}); the run goes on\n`)
    return undefined
  }
}
