import http from 'node:http'
import https from 'node:https'
import {eitherSignal} from '../process/either-signal.js'
import {sendResultOf, type SendResult} from './send-result.js'
import type {WebhookRequest} from './webhook-request.js'

/** The most of an answer's body read (for the log of a refusal): the rest is not waited for. */
const bodyLimit = 4096

/**
 * POST `request` once, on a connection of its own, and say how it went: never throws. No answer within
 * `timeoutMs`, a refused or reset connection, a name that does not resolve: worth another try (`retry`).
 */
export function postJson(request: WebhookRequest, options: {timeoutMs: number; signal?: AbortSignal}): Promise<SendResult> {
  return new Promise((resolve) => {
    let done = false
    const finish = (result: SendResult): void => {
      if (done) return
      done = true
      resolve(result)
    }
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return finish({kind: 'permanent', detail: 'the URL does not parse'})
    }
    const client = url.protocol === 'https:' ? https : http
    const body = Buffer.from(request.body, 'utf8')
    // The whole try, answer included, within the bound (its timer keeps nothing alive).
    const timeout = AbortSignal.timeout(options.timeoutMs)
    const signal = eitherSignal(options.signal, timeout)
    const req = client.request(url, {method: 'POST', headers: {...request.headers, 'content-length': String(body.length)}, agent: false, signal})
    req.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      const answered = (): void => {
        const retryAfter = response.headers['retry-after']
        finish(sendResultOf(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), Array.isArray(retryAfter) ? retryAfter[0] : retryAfter))
      }
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= bodyLimit) chunks.push(chunk)
        else {
          answered()
          response.destroy()
        }
      })
      response.on('end', answered)
      response.on('error', answered)
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (timeout.aborted) return finish({kind: 'retry', detail: `no answer within ${Math.round(options.timeoutMs / 1000)} s`})
      finish({kind: 'retry', detail: error.code ? `${error.code}: ${error.message}` : error.message})
    })
    req.end(body)
  })
}
