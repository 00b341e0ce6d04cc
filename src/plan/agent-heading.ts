/** `A: types`, `B2: api`, `api-client: HTTP client`, `Agent C: ui` → id and name. */
const heading = /^(?:agent\s+)?`?([A-Za-z][A-Za-z0-9_.-]*)`?\s*:\s*(.*)$/i

/**
 * Read an agent heading's text; `undefined` when it is not `ID: name` (e.g. `Amendments`).
 *
 * IDs are ASCII on purpose (`[A-Za-z][A-Za-z0-9_.-]*`): an ID travels into
 * dependency lists, table cells, git branch and worktree names, log file
 * names, Mermaid node names and the Open Questions headings, where a space or
 * a letter with several spellings (`Ä` composed or not) would not survive.
 * The name after the colon may be any text.
 */
export function agentHeading(text: string): {id: string; name: string} | undefined {
  const match = heading.exec(text.trim())
  if (!match) return undefined
  return {id: match[1]!, name: match[2]!.trim()}
}
