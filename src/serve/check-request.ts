import {timingSafeEqual} from 'node:crypto'

/** What the server knows of itself: the token (undefined on 127.0.0.1 without one) and the hosts it answers as. */
export interface ServerIdentity {
  token?: string
  /**
   * `host:port` forms a browser may send in `Host` (127.0.0.1:8123, localhost:8123): a page of another site that
   * renamed itself to 127.0.0.1 (DNS rebinding) names its own. Undefined: any (bound elsewhere, with a token).
   */
  hosts?: ReadonlySet<string>
}

export interface RequestFacts {
  method: string
  /** The `Host` header. */
  host?: string
  /** The `Origin` header, when the browser sent one. */
  origin?: string
  /** The `Sec-Fetch-Site` header, when the browser sent one. */
  fetchSite?: string
  /** The token the request carries (`?token=`, `X-Mdplan-Token`, or `Authorization: Bearer`). */
  token?: string
  /** A GET of the page's own code or style: it holds nothing of a plan, so it needs no token (a `<script src>` sends none). */
  asset?: boolean
}

export type Verdict = {ok: true} | {ok: false; status: 403 | 421; why: string}

/**
 * Whether to serve a request, decided from its headers alone (pure). Every request must name the server in `Host`
 * (a DNS-rebinding page names its own); with a token, every request must carry it; and every request that changes
 * something (not GET or HEAD) must come from the server's own origin, so no page elsewhere can answer a question
 * through a browser that can reach the server (cross-site request forgery), on 127.0.0.1 too.
 */
export function checkRequest(facts: RequestFacts, server: ServerIdentity): Verdict {
  if (facts.host === undefined || (server.hosts !== undefined && !server.hosts.has(facts.host.toLowerCase()))) return {ok: false, status: 421, why: `unknown Host ${JSON.stringify(facts.host ?? '')}`}
  if (server.token !== undefined && !(facts.asset && facts.method === 'GET') && !sameToken(facts.token, server.token)) return {ok: false, status: 403, why: 'no token, or a wrong one'}
  if (facts.method === 'GET' || facts.method === 'HEAD') return {ok: true}
  if (facts.fetchSite !== undefined && facts.fetchSite !== 'same-origin') return {ok: false, status: 403, why: `a ${facts.fetchSite} request`}
  // A browser sends Origin with every POST; one that is absent is no browser's, or a very old one: refused too.
  if (facts.origin === undefined) return {ok: false, status: 403, why: 'no Origin'}
  let origin: URL
  try {
    origin = new URL(facts.origin)
  } catch {
    return {ok: false, status: 403, why: `a malformed Origin ${JSON.stringify(facts.origin)}`}
  }
  if (origin.protocol !== 'http:' || origin.host.toLowerCase() !== facts.host.toLowerCase()) return {ok: false, status: 403, why: `a request from ${facts.origin}`}
  return {ok: true}
}

/** Constant time, so the token cannot be guessed a character at a time. */
function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}
