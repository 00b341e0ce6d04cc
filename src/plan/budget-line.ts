/**
 * The line under the Execution State table that says what has been spent against the plan's budget
 * (budget-use.ts writes it): `budget: 16.2M of 20M tokens (81 %)` at the warning threshold, `budget reached:
 * 20.1M of 20M tokens` at 100 %. mdplan owns it: a run writes it from the rows' spend and the budget, and
 * removes it when the budget is no longer reached or warned about.
 */
const part = String.raw`(?:[\d.]+[kMB]? of [\d.]+[kMB]? tokens|\$[\d.]+ of \$[\d.]+)(?: \(\d+ %\))?`
const pattern = new RegExp(String.raw`^[ \t]*budget(?: reached)?: ${part}(?:, ${part})*[ \t]*$`)

/** Whether a line after the table is mdplan's budget line. */
export function isBudgetLine(text: string): boolean {
  return pattern.test(text)
}

/** The budget line among the lines after a table, trimmed (undefined: none). A code block's lines are not mdplan's. */
export function readBudgetLine(lines: Iterable<string>): string | undefined {
  let fenced = false
  for (const line of lines) {
    if (/^[ \t]*(?:```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced && isBudgetLine(line)) return line.trim()
  }
  return undefined
}
