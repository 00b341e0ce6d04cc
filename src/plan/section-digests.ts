import {createHash} from 'node:crypto'

/** The `**Prompts:** path` lines of a two-file plan, wherever they are. */
export const promptsKey = '**prompts**'
const prompts = promptsKey
const promptsLine = /^[ \t]*\*\*Prompts:?\*\*/i

/** Sections whose bytes mdplan owns: an edit there changes no agent's definition. */
const owned = new Set(['execution state', 'open questions', 'dag visualization'])

/**
 * Sections a run reads its agents' definitions from: the agents themselves,
 * the text sent before every prompt, and the head (front matter, title, a
 * `**Prompts:**` line). An edit to any other section (`## Context`, notes,
 * `## Integration Tests`) changes nothing a launch uses.
 */
const defining = new Set(['', 'agents', 'shared contract', 'prompt preamble', prompts])

/**
 * A digest per H2 section of a plan (the head before the first one under
 * ''; a repeated title numbered `title#2`), except the sections mdplan
 * writes. One pass over the lines that tracks fences; `definitionDigest` is made from these.
 */
export function sectionDigests(text: string): Map<string, string> {
  const digests = new Map<string, string>()
  let key = ''
  let hash = createHash('sha1')
  let skipping = false
  let fence: string | undefined
  const promptLines = createHash('sha1')
  const close = (): void => {
    if (!skipping) digests.set(key, hash.digest('hex'))
  }
  for (let start = 0; start <= text.length; ) {
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
        if (heading) {
          close()
          const title = heading[1]!.trim().toLowerCase()
          skipping = owned.has(title)
          key = title
          for (let n = 2; digests.has(key); n++) key = `${title}#${n}`
          hash = createHash('sha1')
        }
      }
    }
    if (!skipping) hash.update(line).update('\n')
    if (promptsLine.test(line)) promptLines.update(line).update('\n')
    start = end + 1
  }
  close()
  digests.set(prompts, promptLines.digest('hex'))
  return digests
}

/**
 * Whether going from `before` to `after` changed only sections no launch
 * reads: then the agents, and the text sent with their prompts, are as they
 * were, and a run need not parse the plan again to know it.
 */
export function onlyOtherSections(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): boolean {
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    if (before.get(key) === after.get(key)) continue
    if (defining.has(key.replace(/#\d+$/, '')) || key.includes('#')) return false
  }
  return true
}
