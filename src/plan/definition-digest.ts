import {createHash} from 'node:crypto'

/** Sections whose bytes mdplan owns: an edit there changes no agent's definition. */
const owned = new Set(['execution state', 'open questions', 'dag visualization'])

/**
 * A digest of everything in a plan that defines its agents: the whole text
 * except the sections mdplan writes. Cheap (one pass over the lines, no
 * parse), so a run can tell after every save whether a person edited the
 * agents (their prompts, dependencies, new agents) and only then re-parse.
 */
export function definitionDigest(text: string): string {
  const hash = createHash('sha1')
  let fence: string | undefined
  let skipping = false
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const line = text.slice(start, end)
    if (fence) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/^[`~]+/, '') === '' && line.trim().length >= fence.length) fence = undefined
    } else {
      const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)
      if (opening) fence = opening[1]
      else {
        const heading = /^ {0,3}##(?!#)\s*(.*?)\s*#*\s*$/.exec(line.replace(/\r$/, ''))
        if (heading) skipping = owned.has(heading[1]!.trim().toLowerCase())
      }
    }
    if (!skipping) hash.update(line).update('\n')
    start = end + 1
  }
  return hash.digest('hex')
}
