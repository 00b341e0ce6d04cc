/** A piece of a list value: offsets into the text, whitespace trimmed. */
export interface Piece {
  start: number
  end: number
}

const none = /^(?:\u2014|\u2013|-|none|n\/a|null|nil|\[\s*\])$/i

/**
 * Split a list value (`[A, B]`, `A, B`, `` [`a/[id]/b.ts`, `c.ts`] ``, or one item
 * per `- ` bullet line) into pieces. Commas split only at the top level:
 * brackets, parentheses and backticks nest, so `app/[a,b]/x.ts` stays whole.
 */
export function splitList(text: string, start: number, end: number): Piece[] {
  ;[start, end] = trim(text, start, end)
  if (start >= end || none.test(text.slice(start, end))) return []
  // One pair of brackets around the whole value is the list's own.
  if (text[start] === '[' && text[end - 1] === ']' && closes(text, start, end - 1)) [start, end] = trim(text, start + 1, end - 1)

  const pieces: Piece[] = []
  let depth = 0
  let code = false
  let pieceStart = start
  const push = (to: number): void => {
    let [from, until] = trim(text, pieceStart, to)
    // A bullet line: `- a.ts`.
    const bullet = /^[-*+][ \t]+/.exec(text.slice(from, Math.min(until, from + 8)))
    if (bullet) from += bullet[0].length
    if (from < until && !none.test(text.slice(from, until))) pieces.push({start: from, end: until})
  }
  for (let index = start; index < end; index++) {
    const char = text[index]
    if (char === '`') code = !code
    else if (code) continue
    else if (char === '[' || char === '(' || char === '{') depth++
    else if ((char === ']' || char === ')' || char === '}') && depth > 0) depth--
    else if ((char === ',' && depth === 0) || char === '\n') {
      push(index)
      pieceStart = index + 1
    }
  }
  push(end)
  return pieces
}

function trim(text: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(text[start]!)) start++
  while (end > start && /\s/.test(text[end - 1]!)) end--
  return [start, end]
}

/** Whether the bracket at `open` is closed exactly at `close`. */
function closes(text: string, open: number, close: number): boolean {
  let depth = 0
  let code = false
  for (let index = open; index <= close; index++) {
    const char = text[index]
    if (char === '`') code = !code
    if (code) continue
    if (char === '[') depth++
    else if (char === ']' && --depth === 0) return index === close
  }
  return false
}
