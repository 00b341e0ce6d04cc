/**
 * The answer as the agent should read it: `Option 2`, `2` or `2.` become
 * `Option 2: SQLite` when the question listed options; anything else verbatim.
 */
export function resolveAnswer(answer: string, options: readonly string[] = []): string {
  const match = /^\s*(?:option\s*)?#?(\d+)\s*[.)]?\s*$/i.exec(answer)
  if (!match) return answer.trim()
  const option = options[Number(match[1]) - 1]
  return option === undefined ? answer.trim() : `Option ${match[1]}: ${option}`
}
