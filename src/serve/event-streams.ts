import type {IncomingMessage, ServerResponse} from 'node:http'
import type {ServedPlans} from './served-plans.js'
import type {PlanView} from './plan-view.js'
import {viewPatch} from './view-patch.js'

interface Stream {
  response: ServerResponse
  /** The plan it shows. */
  index: number
  /** The view last sent on it: the next is sent as a patch of this one. */
  last?: PlanView
  busy?: Promise<void>
  again: boolean
}

/**
 * The pages' event streams (Server-Sent Events, `/api/events?plan=N`): each gets the plan's whole view when it
 * connects (`view`), then, at each change the plan's watch tells of, what changed since the last view sent on
 * it (`patch`, a `ViewPatch`), or the whole view again when the plan's shape changed; `problem` when the plan
 * cannot be read. A view is made only for a plan some page shows, once per change whatever the number of pages.
 */
export class EventStreams {
  readonly #plans: ServedPlans
  readonly #streams = new Set<Stream>()

  constructor(plans: ServedPlans) {
    this.#plans = plans
    plans.onChange(async (index) => {
      await Promise.all([...this.#streams].filter((stream) => stream.index === index).map((stream) => this.#send(stream)))
    })
  }

  open(request: IncomingMessage, response: ServerResponse, index: number, headers: Record<string, string>): void {
    response.writeHead(200, {...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive'})
    response.write('retry: 1000\n\n')
    const stream: Stream = {response, index, again: false}
    this.#streams.add(stream)
    const beat = setInterval(() => response.write(': beat\n\n'), 15_000)
    beat.unref()
    request.on('close', () => {
      this.#streams.delete(stream)
      clearInterval(beat)
    })
    void this.#send(stream)
  }

  /** End every stream once what was written on it is sent (at most `ms` each). */
  async close(ms = 1000): Promise<void> {
    const ended = [...this.#streams].map(
      ({response}) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          response.end(() => {
            clearTimeout(timer)
            resolve()
          })
        })
    )
    this.#streams.clear()
    await Promise.all(ended)
  }

  /** One send at a time per stream, and one more after it when a change came meanwhile. */
  #send(stream: Stream): Promise<void> {
    if (stream.busy) {
      stream.again = true
      return stream.busy
    }
    const loop = async (): Promise<void> => {
      do {
        stream.again = false
        await this.#write(stream)
      } while (stream.again)
    }
    stream.busy = loop().finally(() => (stream.busy = undefined))
    return stream.busy
  }

  async #write(stream: Stream): Promise<void> {
    const {view, error} = await this.#plans.view(stream.index)
    if (stream.response.writableEnded) return
    if (!view) return void stream.response.write(event('problem', {error}))
    if (view === stream.last) return
    const patch = stream.last && viewPatch(stream.last, view)
    stream.response.write(patch ? event('patch', patch) : event('view', view))
    stream.last = view
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}
