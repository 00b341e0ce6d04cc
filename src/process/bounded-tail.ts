/**
 * The last `limit` bytes of a stream, however much passes through: what a runner's result needs of an
 * agent's output (its last lines, a RESULT line, an error) without holding a verbose build's gigabyte in
 * memory. The whole output is in the attempt's log file.
 */
export interface BoundedTail {
  push(chunk: Buffer): void
  /** What is kept, as text (a character cut at the start is dropped). */
  text(): string
  /** Bytes that passed through in all. */
  readonly total: number
}

/** Default size of what a result keeps of stdout: far more than any runner's final message or RESULT block. */
export const outputTailBytes = 4 * 1024 * 1024

export function boundedTail(limit: number): BoundedTail {
  let chunks: Buffer[] = []
  let kept = 0
  let total = 0
  return {
    push(chunk) {
      total += chunk.length
      chunks.push(chunk)
      kept += chunk.length
      if (kept <= limit * 2) return
      // Compacted now and then, not per chunk: a copy of `limit` bytes every `limit` bytes that pass.
      const whole = Buffer.concat(chunks)
      const rest = whole.subarray(whole.length - limit)
      chunks = [Buffer.from(rest)]
      kept = rest.length
    },
    text() {
      let whole = Buffer.concat(chunks)
      if (whole.length > limit) whole = whole.subarray(whole.length - limit)
      // A UTF-8 character cut at the start (continuation bytes 10xxxxxx) is dropped, not shown as U+FFFD.
      let start = 0
      if (total > whole.length) while (start < whole.length && start < 4 && (whole[start]! & 0xc0) === 0x80) start++
      return whole.subarray(start).toString('utf8')
    },
    get total() {
      return total
    }
  }
}
