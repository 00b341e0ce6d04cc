import {StringDecoder} from 'node:string_decoder'

/**
 * The longest line handed to a parser (a CLI's final JSON event may be large; a runaway log line with no
 * newline for a gigabyte must not be held whole): longer lines are skipped up to their end, so memory stays
 * bounded whatever an agent prints. The log file has every byte.
 */
export const maxLineChars = 32 * 1024 * 1024

/** Cut a byte stream into lines as spawnAgent does (UTF-8 safe across chunks, `\r\n` trimmed); `end` flushes the last partial line. */
export function lineSplitter(onLine: ((line: string) => void) | undefined, maxChars = maxLineChars): {push: (chunk: Buffer) => void; end: () => void} {
  const decoder = new StringDecoder('utf8')
  let partial = ''
  /** Inside a line already over the limit: everything up to its newline is dropped. */
  let skipping = false
  const emit = (line: string): void => {
    try {
      onLine?.(line.endsWith('\r') ? line.slice(0, -1) : line)
    } catch {
      // A parser bug must not take the agent's output (or mdplan) down with it.
    }
  }
  return {
    push(chunk) {
      if (!onLine) return
      const text = partial + decoder.write(chunk)
      let start = 0
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        if (!skipping) emit(text.slice(start, newline))
        skipping = false
        start = newline + 1
      }
      partial = text.slice(start)
      if (partial.length > maxChars) {
        partial = ''
        skipping = true
      }
    },
    end() {
      if (!onLine) return
      const rest = partial + decoder.end()
      partial = ''
      if (rest !== '' && !skipping) emit(rest)
      skipping = false
    }
  }
}
