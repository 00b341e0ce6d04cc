import {parseNotes} from './notes.js'

/**
 * The first item of `key` taken out of a Notes cell: its value, and the cell without it, every other
 * byte as it was (the separator before or after it goes with it). The inverse of adding the item at the
 * front (spend-into-notes.ts). `value` is undefined, and `rest` the cell, when it has no such item.
 */
export function takeNote(cell: string, key: string): {value: string | undefined; rest: string} {
  const pieces = rawPieces(cell)
  for (let i = 0; i < pieces.length; i++) {
    const [item] = parseNotes(unescapedEnd(pieces[i]!, i < pieces.length - 1))
    if (item?.key !== key) continue
    const kept = pieces.filter((_, k) => k !== i)
    // The cell's new last item is no longer before a separator: its doubled trailing backslashes are halved.
    if (i === pieces.length - 1 && kept.length > 0) kept[kept.length - 1] = unescapedEnd(kept[kept.length - 1]!, true).replace(/\s+$/, '')
    const rest = kept.join(';')
    return {value: item.value, rest: i === 0 ? rest.replace(/^\s+/, '') : rest}
  }
  return {value: undefined, rest: cell}
}

/** The cell cut at each separator (a `;` after an even run of backslashes), the pieces as written. */
function rawPieces(cell: string): string[] {
  const pieces: string[] = []
  let from = 0
  let run = 0
  for (let index = 0; index < cell.length; index++) {
    const char = cell[index]
    if (char === ';' && run % 2 === 0) {
      pieces.push(cell.slice(from, index))
      from = index + 1
    }
    run = char === '\\' ? run + 1 : 0
  }
  pieces.push(cell.slice(from))
  return pieces
}

/** A piece before a separator ends in an even run of backslashes, doubled: halved, as the reader does. */
function unescapedEnd(piece: string, beforeSeparator: boolean): string {
  if (!beforeSeparator) return piece
  const run = /\\+$/.exec(piece)?.[0].length ?? 0
  return run === 0 ? piece : piece.slice(0, piece.length - run / 2)
}
