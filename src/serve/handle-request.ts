import type {IncomingMessage, ServerResponse} from 'node:http'
import {checkRequest, type ServerIdentity} from './check-request.js'
import {pageAsset} from './page-assets.js'
import type {ServedPlans} from './served-plans.js'
import type {EventStreams} from './event-streams.js'
import {listPlans, postAnswer, postEdit, postReview, showDag, showLog, showPlan, type Reply} from './api-routes.js'

const headers = {
  // No inline script, nothing from elsewhere: text that got into the page as markup would still run nothing.
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The token is in the page's address: never sent on to another site.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store'
}

const gets: Record<string, (plans: ServedPlans, query: URLSearchParams) => Promise<Reply>> = {
  '/api/plans': (plans) => listPlans(plans),
  '/api/plan': showPlan,
  '/api/dag': showDag,
  '/api/log': showLog
}

const posts: Record<string, (plans: ServedPlans, body: Record<string, unknown>) => Promise<Reply>> = {
  '/api/answer': postAnswer,
  '/api/edit': postEdit,
  '/api/review': postReview
}

/** One request: checked (`checkRequest`), then a page asset, a JSON reply, or the event stream. */
export async function handleRequest(request: IncomingMessage, response: ServerResponse, plans: ServedPlans, server: ServerIdentity, streams: EventStreams): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://server')
  const method = request.method ?? 'GET'
  const asset = method === 'GET' ? pageAsset(url.pathname) : undefined
  const verdict = checkRequest(
    {
      method,
      host: request.headers.host,
      origin: request.headers.origin,
      fetchSite: header(request, 'sec-fetch-site'),
      token: url.searchParams.get('token') ?? header(request, 'x-mdplan-token'),
      asset: asset !== undefined && url.pathname !== '/'
    },
    server
  )
  if (!verdict.ok) return send(response, verdict.status, {error: verdict.why})
  if (asset) {
    response.writeHead(200, {...headers, 'content-type': asset.type, 'content-length': asset.body.length})
    response.end(method === 'HEAD' ? undefined : asset.body)
    return
  }
  if (method === 'GET' && url.pathname === '/api/events') {
    const index = Number(url.searchParams.get('plan') ?? 0)
    if (!Number.isInteger(index) || index < 0 || index >= plans.plans.length) return send(response, 404, {error: 'no such plan'})
    return streams.open(request, response, index, headers)
  }
  try {
    const get = method === 'GET' ? gets[url.pathname] : undefined
    if (get) return send(response, ...spread(await get(plans, url.searchParams)))
    const post = method === 'POST' ? posts[url.pathname] : undefined
    if (!post) return send(response, 404, {error: 'not found'})
    const body = await readJson(request)
    if (!body) return send(response, 400, {error: 'expected a JSON object'})
    return send(response, ...spread(await post(plans, body)))
  } catch (error) {
    return send(response, 500, {error: error instanceof Error ? error.message : String(error)})
  }
}

function spread(reply: Reply): [number, unknown] {
  return [reply.status, reply.body]
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body))
  response.writeHead(status, {...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': data.length})
  response.end(data)
}

/** At most 64 KB of JSON: an object, or undefined. */
async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > 64 * 1024) return undefined
    chunks.push(chunk)
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
