import {openQuestionEntries} from '../protocol/open-question-entries.js'

export interface MergedOpenQuestions {
  /** The merged section (heading included), or undefined when neither side has one. */
  text?: string
  /** Agents whose entry both sides changed differently (left between conflict markers). */
  conflicts: string[]
}

interface Chunk {
  agent?: string
  /** The chunk's lines up to its last line with text. */
  core: string
  /** The blank lines after it. */
  trail: string
}

/**
 * `## Open Questions` united by agent: ours' section with theirs' entries
 * added at its end. An entry only one side changed (an answer written) takes
 * that side; one side removed it and the other left it as it was: removed;
 * both changed it differently: both versions between conflict markers naming
 * the agent. Every other byte of ours' section stays. Pure.
 */
export function mergeOpenQuestions(base: string | undefined, ours: string | undefined, theirs: string | undefined): MergedOpenQuestions {
  if (ours === undefined) return {text: theirs, conflicts: []}
  if (theirs === undefined || ours === theirs || theirs === base) return {text: ours, conflicts: []}
  const eol = ours.includes('\r\n') ? '\r\n' : '\n'
  const b = entries(chunks(base ?? ''))
  const o = chunks(ours)
  const t = entries(chunks(theirs))
  const conflicts: string[] = []
  const oursAgents = new Set(o.map((chunk) => chunk.agent))

  for (const chunk of o) {
    if (chunk.agent === undefined) continue
    const was = b.get(chunk.agent)
    const their = t.get(chunk.agent)
    if (their === undefined || their === chunk.core || their === was) continue
    if (chunk.core === was) chunk.core = their
    else {
      conflicts.push(chunk.agent)
      const end = chunk.core.endsWith('\n') ? '' : eol
      chunk.core = `<<<<<<< ours: open question of agent ${chunk.agent}${eol}${chunk.core}${end}=======${eol}${their}${their.endsWith('\n') ? '' : eol}>>>>>>> theirs: open question of agent ${chunk.agent}${end === '' ? eol : ''}`
    }
  }
  const added: string[] = []
  for (const [agent, core] of t) {
    if (oursAgents.has(agent)) continue
    // Removed on ours and untouched on theirs: stays removed.
    if (b.get(agent) === core) continue
    added.push(core)
  }
  if (added.length > 0) {
    const last = o[o.length - 1]!
    for (const core of added) {
      last.core += (last.core.endsWith('\n') ? eol : eol + eol) + core
    }
  }
  return {text: o.map((chunk) => chunk.core + chunk.trail).join(''), conflicts}
}

function chunks(text: string): Chunk[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? []
  const found = openQuestionEntries(lines.map((line) => line.replace(/\r?\n$/, '')))
  const bounds = [{start: 0, agent: undefined as string | undefined}, ...found.map((entry) => ({start: entry.start, agent: entry.agent}))]
  return bounds.map((bound, i) => {
    const end = i + 1 < bounds.length ? bounds[i + 1]!.start : lines.length
    let last = end
    while (last > bound.start && lines[last - 1]!.trim() === '') last--
    return {agent: bound.agent, core: lines.slice(bound.start, last).join(''), trail: lines.slice(last, end).join('')}
  })
}

function entries(list: Chunk[]): Map<string, string> {
  const map = new Map<string, string>()
  for (const chunk of list) if (chunk.agent !== undefined && !map.has(chunk.agent)) map.set(chunk.agent, chunk.core)
  return map
}
