import {createWriteStream, type WriteStream} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import {Writable} from 'node:stream'
import type {JobAttempt} from '../job-attempt.js'
import type {KubernetesClient} from './kubernetes-client.js'

/** Follow a pod's log until it ends; bytes before `offset` were seen already. Returns the new offset. */
export async function followLog(client: KubernetesClient, pod: string, offset: number, push: (chunk: Buffer) => void, signal: AbortSignal): Promise<number> {
  // An abort that came while the pod was looked up: its event has fired already.
  if (signal.aborted) return offset
  let seen = 0
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const fresh = seen + chunk.length > offset ? chunk.subarray(Math.max(0, offset - seen)) : undefined
      seen += chunk.length
      if (fresh && fresh.length > 0) push(Buffer.from(fresh))
      callback()
    }
  })
  await new Promise<void>((resolve) => {
    let controller: AbortController | undefined
    const onAbort = (): void => {
      controller?.abort()
      done()
    }
    const done = (): void => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }
    signal.addEventListener('abort', onAbort, {once: true})
    // The client (1.4) pipes the response into the sink and never calls a `done` callback: the sink's end is the log's end.
    sink.on('finish', done)
    sink.on('error', done)
    new client.k8s.Log(client.config)
      .log(client.namespace, pod, 'agent', sink, {follow: true})
      .then((made) => {
        controller = made
        if (signal.aborted) made.abort()
      }, done)
  })
  return Math.max(offset, seen)
}

/** The longest trailer line held (a base64 line is 76 characters); a longer one is cut there. */
const maxTrailerLine = 64 * 1024

/**
 * Splits a pod's log as it streams into the agent's output (into the frame, chunk by chunk) and the trailer
 * the pod script writes after it, which starts with `<marker> rc N` at the start of a line: the exit code,
 * the result bundle in base64 (decoded into `resultFile` as it comes), `<marker> end`, then the job's
 * stderr (into the frame). Holds at most a marker's length of output and one trailer line.
 */
export class TrailerReader {
  #marker: string
  #head: Buffer
  #frame: JobAttempt
  #resultFile: string
  #mode: 'output' | 'trailer' | 'bundle' | 'after' = 'output'
  /** Output held back: it may be the start of the marker's line. */
  #carry = Buffer.alloc(0)
  #atLineStart = true
  #line: Buffer[] = []
  #lineBytes = 0
  #exitCode: number | undefined
  #bundle: WriteStream | undefined
  #base64 = ''
  #ended: Promise<void> | undefined

  constructor(marker: string, frame: JobAttempt, resultFile: string) {
    this.#marker = marker
    this.#head = Buffer.from(`${marker} rc `)
    this.#frame = frame
    this.#resultFile = resultFile
  }

  push = (chunk: Buffer): void => {
    if (this.#mode === 'output') this.#output(chunk)
    else this.#trailer(chunk)
  }

  /** The last of it: held output passed on, a bundle cut short removed. */
  async end(): Promise<void> {
    if (this.#mode === 'output' && this.#carry.length > 0) this.#frame.out(this.#carry)
    this.#carry = Buffer.alloc(0)
    if (this.#lineBytes > 0 && this.#mode === 'after') this.#take(Buffer.concat(this.#line))
    ;[this.#line, this.#lineBytes] = [[], 0]
    await (this.#ended ?? this.#close(false))
  }

  done(): boolean {
    return this.#mode === 'after'
  }

  exitCode(): number {
    return Number.isInteger(this.#exitCode) ? this.#exitCode! : 125
  }

  #output(chunk: Buffer): void {
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk
    for (let from = 0; ; ) {
      const at = data.indexOf(this.#head, from)
      if (at !== -1 && (at > 0 ? data[at - 1] === 10 : this.#atLineStart)) {
        if (at > 0) this.#frame.out(data.subarray(0, at))
        this.#mode = 'trailer'
        return this.#trailer(data.subarray(at))
      }
      if (at !== -1) {
        from = at + 1
        continue
      }
      // Hold back what could be the marker's start; pass the rest on.
      const keep = Math.min(data.length, this.#head.length - 1)
      const pass = data.subarray(0, data.length - keep)
      if (pass.length > 0) {
        this.#frame.out(pass)
        this.#atLineStart = pass[pass.length - 1] === 10
      }
      this.#carry = Buffer.from(data.subarray(data.length - keep))
      return
    }
  }

  #trailer(chunk: Buffer): void {
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10)) {
      this.#take(Buffer.concat([...this.#line, chunk.subarray(0, newline)]))
      ;[this.#line, this.#lineBytes] = [[], 0]
      chunk = chunk.subarray(newline + 1)
    }
    if (this.#lineBytes < maxTrailerLine) this.#line.push(Buffer.from(chunk.subarray(0, maxTrailerLine - this.#lineBytes)))
    this.#lineBytes += chunk.length
  }

  #take(bytes: Buffer): void {
    const text = bytes.toString('latin1')
    if (this.#mode === 'trailer') {
      this.#exitCode = Number(text.slice(this.#head.length))
      this.#mode = 'bundle'
    } else if (this.#mode === 'bundle' && text === `${this.#marker} end`) {
      if (this.#base64) this.#write(Buffer.from(this.#base64, 'base64'))
      this.#mode = 'after'
      this.#ended = this.#close(true)
    } else if (this.#mode === 'bundle') {
      // Whole groups of four characters decode alone; the rest waits for the next line.
      const all = this.#base64 + text.trim()
      const whole = all.length - (all.length % 4)
      this.#write(Buffer.from(all.slice(0, whole), 'base64'))
      this.#base64 = all.slice(whole)
    } else this.#frame.err(Buffer.concat([bytes, Buffer.from('\n')]))
  }

  #write(bytes: Buffer): void {
    this.#bundle ??= createWriteStream(`${this.#resultFile}.part`)
    if (bytes.length > 0) this.#bundle.write(bytes)
  }

  async #close(keep: boolean): Promise<void> {
    const stream = this.#bundle ?? (keep ? createWriteStream(`${this.#resultFile}.part`) : undefined)
    if (stream) await new Promise<void>((resolve) => stream.end(() => resolve()))
    if (keep) await rename(`${this.#resultFile}.part`, this.#resultFile)
    else await rm(`${this.#resultFile}.part`, {force: true})
  }
}
