import {createServer, type IncomingMessage} from 'node:http'
import type {AddressInfo} from 'node:net'
import {describe, expect, it} from 'vitest'
import {webhookRequest} from '../../../src/notify/webhook-request.js'
import {postJson} from '../../../src/notify/post-json.js'
import {sampleEvent} from '../../helpers/notify-sample.js'

const webhook = {type: 'webhook' as const, url: {env: 'MDPLAN_HOOK'}, headersEnv: {Authorization: 'HOOK_TOKEN'}}
const slack = {type: 'slack' as const, url: {url: 'https://hooks.example/T/B/X'}, headersEnv: {}}

describe('payloads', () => {
  it('generic: the event as JSON, its id as Idempotency-Key; the URL and headers from the environment', () => {
    const event = sampleEvent()
    const request = webhookRequest(webhook, event, {MDPLAN_HOOK: 'http://127.0.0.1:9/hook', HOOK_TOKEN: 'Bearer s3cret'})
    if ('missing' in request) throw new Error(request.missing)
    expect(request.url).toBe('http://127.0.0.1:9/hook')
    expect(request.headers).toMatchObject({'content-type': 'application/json', 'idempotency-key': event.id, authorization: 'Bearer s3cret'})
    expect(JSON.parse(request.body)).toEqual(event)
    expect(JSON.parse(request.body).id).toBe(request.headers['idempotency-key'])
  })

  it('a variable not set is named, and nothing is sent', () => {
    expect(webhookRequest(webhook, sampleEvent(), {HOOK_TOKEN: 'x'})).toEqual({missing: 'MDPLAN_HOOK'})
    expect(webhookRequest(webhook, sampleEvent(), {MDPLAN_HOOK: 'http://h/'})).toEqual({missing: 'HOOK_TOKEN'})
  })

  it('Slack: only {"text": …}, one line, escaped so an agent can neither mention the channel nor make a link', () => {
    const request = webhookRequest(slack, sampleEvent({text: 'A asks: <!channel> ok? <http://evil|click> & more'}), {})
    if ('missing' in request) throw new Error(request.missing)
    expect(request.url).toBe('https://hooks.example/T/B/X')
    expect(request.headers['idempotency-key']).toBe(sampleEvent().id)
    const body = JSON.parse(request.body)
    expect(Object.keys(body)).toEqual(['text'])
    expect(body.text).toBe(':raising_hand: mdplan plan.md: A asks: &lt;!channel&gt; ok? &lt;http://evil|click&gt; &amp; more')
    const quiet = webhookRequest(slack, sampleEvent({needs_you: false, text: 'run finished (exit 0): 3 completed'}), {})
    expect(JSON.parse((quiet as {body: string}).body).text).toBe('mdplan plan.md: run finished (exit 0): 3 completed')
  })
})

describe('postJson', () => {
  async function receiver(answer: (request: IncomingMessage, body: string) => {status: number; body?: string; headers?: Record<string, string>} | undefined) {
    const seen: Array<{headers: IncomingMessage['headers']; body: string}> = []
    const server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      request.on('end', () => {
        seen.push({headers: request.headers, body})
        const said = answer(request, body)
        if (!said) return
        response.writeHead(said.status, said.headers)
        response.end(said.body ?? '')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    return {url, seen, close: () => (server.closeAllConnections(), new Promise<void>((resolve) => server.close(() => resolve())))}
  }

  it('posts the body with its headers and reads the answer', async () => {
    const at = await receiver(() => ({status: 503, body: 'busy', headers: {'retry-after': '2'}}))
    try {
      const result = await postJson({url: at.url, headers: {'content-type': 'application/json', 'idempotency-key': 'k1'}, body: '{"id":"k1"}'}, {timeoutMs: 10_000})
      expect(result).toEqual({kind: 'retry', detail: 'HTTP 503: busy', retryAfterMs: 2000})
      expect(at.seen).toHaveLength(1)
      expect(at.seen[0]!.headers['idempotency-key']).toBe('k1')
      expect(at.seen[0]!.body).toBe('{"id":"k1"}')
    } finally {
      await at.close()
    }
  })

  it('a receiver that does not answer in time, or no receiver at all, is worth another try', async () => {
    const at = await receiver(() => undefined)
    try {
      const slow = await postJson({url: at.url, headers: {}, body: '{}'}, {timeoutMs: 200})
      expect(slow).toMatchObject({kind: 'retry', detail: expect.stringMatching(/no answer within/)})
    } finally {
      await at.close()
    }
    const refused = await postJson({url: at.url, headers: {}, body: '{}'}, {timeoutMs: 10_000})
    expect(refused).toMatchObject({kind: 'retry', detail: expect.stringMatching(/ECONNREFUSED/)})
  })

  it('an abort ends a try under way', async () => {
    const at = await receiver(() => undefined)
    try {
      const controller = new AbortController()
      const trying = postJson({url: at.url, headers: {}, body: '{}'}, {timeoutMs: 60_000, signal: controller.signal})
      while (at.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      controller.abort()
      expect(await trying).toMatchObject({kind: 'retry'})
    } finally {
      await at.close()
    }
  })
})
