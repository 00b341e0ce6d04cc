import {cutItems, halveEnd, parseNotes} from './notes.js'

/**
 * The first item of `key` taken out of a Notes cell: its value, and the cell without it, every other
 * byte as it was (the separator before or after it goes with it). The inverse of adding the item at the
 * front (spend-into-notes.ts). `value` is undefined, and `rest` the cell, when it has no such item.
 */
export function takeNote(cell: string, key: string): {value: string | undefined; rest: string} {
  const pieces = cutItems(cell)
  for (let i = 0; i < pieces.length; i++) {
    const [item] = parseNotes(i < pieces.length - 1 ? halveEnd(pieces[i]!) : pieces[i]!)
    if (item?.key !== key) continue
    const kept = pieces.filter((_, k) => k !== i)
    // The cell's new last item is no longer before a separator: its doubled trailing backslashes are halved.
    if (i === pieces.length - 1 && kept.length > 0) kept[kept.length - 1] = halveEnd(kept[kept.length - 1]!).replace(/\s+$/, '')
    const rest = kept.join(';')
    return {value: item.value, rest: i === 0 ? rest.replace(/^\s+/, '') : rest}
  }
  return {value: undefined, rest: cell}
}
