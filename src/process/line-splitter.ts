import {StringDecoder} from 'node:string_decoder'

/** Cut a byte stream into lines as spawnAgent does (UTF-8 safe across chunks, `\r\n` trimmed); `end` flushes the last partial line. */
export function lineSplitter(onLine: ((line: string) => void) | undefined): {push: (chunk: Buffer) => void; end: () => void} {
  const decoder = new StringDecoder('utf8')
  let partial = ''
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
        emit(text.slice(start, newline))
        start = newline + 1
      }
      partial = text.slice(start)
    },
    end() {
      if (!onLine) return
      const rest = partial + decoder.end()
      partial = ''
      if (rest !== '') emit(rest)
    }
  }
}
