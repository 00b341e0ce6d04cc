/**
 * The wire between a remote job's scripts (job-scripts.ts, on the host) and this machine: what a script says
 * on stderr, one `mdplan-job <word> …` line each, among the job's own stderr. Both halves use these names:
 * the scripts print them, `jobControlReader` reads them.
 *
 * - `submitted` / `exists`: the submit took the key (a new job), or found the job it names;
 * - `bad-archive`: the job's archive could not be unpacked there (nothing submitted);
 * - `need-base`: the host's cache lacks what the archive's bundle was cut against (nothing submitted);
 *   `fetch: <git's words>` and `new-cache <path>` say why, and what was done about it;
 * - `err <N>` / `bundle <N>`: the next N bytes are the job's stderr / its result bundle, raw (so nothing the
 *   agent prints can pass for a control line);
 * - `rc <code>`: the job ended with that exit code (the last line);
 * - `lost`: the job died without an end; `unknown`: there is no such job (or it was stopped);
 *   `cancelled`: mdplan's own cancel ended it and was cut short; `nostart`: its folder is there, but its
 *   script never started (the agent never ran).
 */
export const jobSays = {
  submitted: 'mdplan-job submitted',
  exists: 'mdplan-job exists',
  badArchive: 'mdplan-job bad-archive',
  needBase: 'mdplan-job need-base',
  fetch: 'mdplan-job fetch:',
  newCache: 'mdplan-job new-cache',
  err: 'mdplan-job err',
  bundle: 'mdplan-job bundle',
  rc: 'mdplan-job rc',
  lost: 'mdplan-job lost',
  unknown: 'mdplan-job unknown',
  cancelled: 'mdplan-job cancelled',
  nostart: 'mdplan-job nostart'
} as const

/** One control line, read. */
export type JobControl =
  | {word: 'submitted' | 'exists' | 'bad-archive' | 'need-base' | 'lost' | 'unknown' | 'cancelled' | 'nostart'}
  | {word: 'fetch'; text: string}
  | {word: 'new-cache'; path: string}
  | {word: 'rc'; code: number}

type Framing = {word: 'err' | 'bundle'; bytes: number}

const plain = new Set(['submitted', 'exists', 'bad-archive', 'need-base', 'lost', 'unknown', 'cancelled', 'nostart'])

/** A line (without its newline) as a control line, or undefined when it is none. */
export function parseJobControl(line: string): JobControl | Framing | undefined {
  const match = /^mdplan-job ([a-z-]+):?(?:\s+(.*?))?\s*$/.exec(line)
  if (!match) return undefined
  const [, word = '', rest = ''] = match
  if (plain.has(word) && rest === '') return {word} as JobControl
  if (word === 'fetch' && line.startsWith(jobSays.fetch)) return {word, text: line.slice(jobSays.fetch.length).trim()}
  if (word === 'new-cache' && rest !== '') return {word, path: rest}
  if (word === 'rc' && /^-?\d+$/.test(rest)) return {word, code: Number(rest)}
  if ((word === 'err' || word === 'bundle') && /^\d+$/.test(rest)) return {word, bytes: Number(rest)}
  return undefined
}

export interface JobControlSink {
  control(said: JobControl): void
  /** What is no control line: the job's stderr, a shell's or git's own complaints. */
  text(chunk: Buffer): void
  /** The result bundle's bytes, as they come. */
  bundle(chunk: Buffer): void
  /** The result bundle's last byte came. */
  bundleEnd(): void
}

/** The longest line looked at as a control line; a longer one is text, passed on as it comes. */
const maxLineBytes = 64 * 1024

/**
 * Read a script's stderr as it streams: control lines to `control`, the framed stderr and any other line to
 * `text`, the framed bundle to `bundle`. Holds at most one line of 64 KiB, whatever passes through.
 */
export function jobControlReader(sink: JobControlSink): {push(chunk: Buffer): void; end(): void} {
  let pending: Buffer[] = []
  let pendingBytes = 0
  /** Inside a line already passed on as text: the rest of it, up to its newline, is text too. */
  let midLine = false
  let raw: {left: number; into: 'text' | 'bundle'} | undefined

  const line = (bytes: Buffer, newline: boolean): void => {
    const said = midLine ? undefined : parseJobControl(bytes.toString('latin1'))
    midLine = false
    if (said === undefined) return sink.text(newline ? Buffer.concat([bytes, Buffer.from('\n')]) : bytes)
    if ('bytes' in said) {
      raw = {left: said.bytes, into: said.word === 'err' ? 'text' : 'bundle'}
      if (said.bytes === 0) endRaw()
      return
    }
    sink.control(said)
  }
  const endRaw = (): void => {
    if (raw?.into === 'bundle') sink.bundleEnd()
    raw = undefined
  }

  return {
    push(chunk) {
      while (chunk.length > 0) {
        if (raw) {
          const taken = chunk.subarray(0, raw.left)
          raw.left -= taken.length
          chunk = chunk.subarray(taken.length)
          if (raw.into === 'bundle') sink.bundle(taken)
          else sink.text(taken)
          if (raw.left === 0) endRaw()
          continue
        }
        const newline = chunk.indexOf(10)
        if (newline === -1) {
          pending.push(Buffer.from(chunk))
          pendingBytes += chunk.length
          if (pendingBytes > maxLineBytes) {
            sink.text(Buffer.concat(pending))
            ;[pending, pendingBytes, midLine] = [[], 0, true]
          }
          return
        }
        const whole = Buffer.concat([...pending, chunk.subarray(0, newline)])
        ;[pending, pendingBytes] = [[], 0]
        chunk = chunk.subarray(newline + 1)
        line(whole, true)
      }
    },
    end() {
      if (pendingBytes > 0) line(Buffer.concat(pending), false)
      ;[pending, pendingBytes] = [[], 0]
      // A bundle cut short (the connection broke) is not a bundle: it never says it ended.
      raw = undefined
    }
  }
}
