/** Narrow `[start, end)` to drop leading and trailing blank lines (and trailing spaces). */
export function trimLines(text: string, start: number, end: number): [number, number] {
  let from = start
  for (let index = start; index < end; index++) {
    const char = text[index]
    if (char === '\n') from = index + 1
    else if (char !== ' ' && char !== '\t' && char !== '\r') break
  }
  let to = end
  while (to > from && /\s/.test(text[to - 1]!)) to--
  return [from, Math.max(from, to)]
}
