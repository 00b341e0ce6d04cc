import {agentHeading} from './agent-heading.js'

const accepted = 'an agent heading is `### <ID>: <name>`, the ID a letter then letters, digits, `_`, `.` or `-` (`A`, `B2`, `api-client`)'
const dashed = /^(?:agent\s+)?`?([A-Za-z][A-Za-z0-9_.-]*)`?\s+[-\u2013\u2014]\s+(.+)$/i

/**
 * Why an H3 heading under `## Agents` that `agentHeading` does not read is a
 * mistake, or undefined when it is a subsection such as `### Amendments`.
 * A mistake: it has the shape of an agent heading (`Task 2: setup`, `Ä: x`,
 * `B - api`), or its section holds agent fields (`hasFields`). Either way the
 * agent would otherwise be skipped without a word.
 */
export function agentHeadingProblem(text: string, hasFields: boolean): string | undefined {
  const trimmed = text.trim()
  if (agentHeading(trimmed)) return undefined
  const dash = dashed.exec(trimmed)
  if (dash) return `\`### ${trimmed}\` is not an agent heading: ${accepted}; write \`### ${dash[1]}: ${dash[2]!.trim()}\``
  const colon = trimmed.indexOf(':')
  if (colon !== -1) {
    const id = trimmed.slice(0, colon).replace(/^agent\s+/i, '').replaceAll('`', '').trim()
    const name = trimmed.slice(colon + 1).trim()
    const suggestion = suggestId(id)
    const fix = suggestion ? `; write \`### ${suggestion}: ${name}\`` : ''
    return `\`${id}\` in \`### ${trimmed}\` is not an agent ID: ${accepted}${fix}, or move a heading that is not an agent out of \`## Agents\``
  }
  if (hasFields) return `\`### ${trimmed}\` has agent fields but no ID: ${accepted}; write \`### <ID>: ${trimmed}\``
  return undefined
}

/** `Task 2` → `Task-2`, `Ä` → `A`; undefined when nothing valid is left. */
function suggestId(id: string): string | undefined {
  const ascii = id
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/g, '-')
    .replace(/[^A-Za-z0-9_.-]/g, '')
  return /^[A-Za-z][A-Za-z0-9_.-]*$/.test(ascii) ? ascii : undefined
}
