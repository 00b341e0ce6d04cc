import {createServer, type Server} from 'node:http'
import {randomBytes} from 'node:crypto'
import {ServedPlans} from './served-plans.js'
import {sendLeftovers} from './send-leftovers.js'
import {handleRequest} from './handle-request.js'
import {EventStreams} from './event-streams.js'
import type {ServerIdentity} from './check-request.js'

export interface ServeOptions {
  /** Plan files or folders, as given (none: the current folder's plans). */
  plans: readonly string[]
  cwd: string
  /** 0: any free port. */
  port: number
  /** Default 127.0.0.1. */
  host?: string
  /** A token to require (else `MDPLAN_SERVE_TOKEN`, else, off the loopback address, a random one). */
  token?: string
  /** Send what the plans' runs left in their notification outboxes (`mdplan serve`; not `run --serve`, whose run does), telling problems here. */
  notify?: (message: string) => void
}

export interface Serving {
  /** The address to open, with the token when there is one (printed once: it is the key). */
  url: string
  port: number
  plans: ServedPlans
  close(): Promise<void>
}

const loopback = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * Serve the page over `options.plans`: bound to 127.0.0.1 unless told otherwise, and then only with a token.
 * Resolves once listening. Nothing but the plans named (with their child plans), their logs and the page's own
 * files is ever read for a request.
 */
export async function startServer(options: ServeOptions): Promise<Serving> {
  const host = options.host ?? '127.0.0.1'
  const local = loopback.has(host)
  const token = options.token ?? (process.env.MDPLAN_SERVE_TOKEN || undefined) ?? (local ? undefined : randomBytes(18).toString('base64url'))
  const plans = await ServedPlans.open(options.plans, options.cwd)
  if (plans.plans.length === 0) throw new Error(`no plan to serve in ${options.plans.join(', ') || options.cwd}`)
  const identity: {token?: string; hosts?: Set<string>} = token === undefined ? {} : {token}
  const streams = new EventStreams(plans)
  const server: Server = createServer((request, response) => {
    handleRequest(request, response, plans, identity as ServerIdentity, streams).catch(() => response.destroy())
  })
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(options.port, host, () => resolveListen())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  // On the loopback address the page answers only to the names of this machine (no DNS rebinding).
  if (local) identity.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
  plans.watch()
  // In the background: a plan's notifications never hold up the page.
  const sending = options.notify ? sendLeftovers(plans.plans.map((plan) => plan.file), options.notify) : undefined
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host
  return {
    url: `http://${shown}:${port}/${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`,
    port,
    plans,
    close: async () => {
      await (await sending)?.(1000)
      // A run's last write reaches the pages before they are let go.
      await plans.drain()
      await streams.close()
      plans.close()
      server.closeAllConnections()
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()))
    }
  }
}
