import {createServer, type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'

/** One request the receiver got: its JSON body, headers, and the order it came in. */
export interface Delivery {
  index: number
  headers: IncomingHttpHeaders
  body: {id: string; kind: string; agent?: string; attempt?: number; text: string; needs_you: boolean; [key: string]: unknown}
}

export interface Receiver {
  url: string
  deliveries: Delivery[]
  /** Resolves once `count` requests have come (throws after `ms`). */
  received(count: number, ms?: number): Promise<void>
  /** Resolves once `count` requests have been answered (throws after `ms`). */
  answered(count: number, ms?: number): Promise<void>
  close(): Promise<void>
}

/**
 * A webhook receiver on 127.0.0.1 in the test's own process (node:http): every request's body is kept, and
 * `answer` says the status to answer with, when it likes (a promise holds the request open).
 */
export async function startReceiver(answer: (delivery: Delivery) => number | Promise<number> = () => 200): Promise<Receiver> {
  const deliveries: Delivery[] = []
  let answeredCount = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const delivery: Delivery = {index: deliveries.length, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8'))}
      deliveries.push(delivery)
      void Promise.resolve(answer(delivery)).then((status) => {
        answeredCount++
        if (!response.destroyed) response.writeHead(status).end(status >= 400 ? 'no' : 'ok')
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const until = async (what: string, holds: () => boolean, ms: number): Promise<void> => {
    for (const deadline = Date.now() + ms; !holds(); ) {
      if (Date.now() > deadline) throw new Error(`the receiver waited ${ms} ms for ${what}; it got ${JSON.stringify(deliveries.map((d) => d.body.id))}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    received: (count, ms = 60_000) => until(`${count} requests`, () => deliveries.length >= count, ms),
    answered: (count, ms = 60_000) => until(`${count} answers`, () => answeredCount >= count, ms),
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
