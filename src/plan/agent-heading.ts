/** `A: types`, `B2: api`, `api-client: HTTP client`, `Agent C: ui` → id and name. */
const heading = /^(?:agent\s+)?`?([A-Za-z][A-Za-z0-9_.-]*)`?\s*:\s*(.*)$/i

/** Read an agent heading's text; `undefined` when it is not `ID: name` (e.g. `Amendments`). */
export function agentHeading(text: string): {id: string; name: string} | undefined {
  const match = heading.exec(text.trim())
  if (!match) return undefined
  return {id: match[1]!, name: match[2]!.trim()}
}
