/**
 * A `Tokens` cell's text as the table shows it: a count in plain digits, as the Notes hold it (`21002`),
 * with thousands separators as the scorecard shows it (`21,002`); any other text (`21k`, `21,002`, a
 * person's `abc`) as it is.
 */
export function shownTokens(text: string): string {
  return /^[1-9]\d{3,15}$/.test(text) ? Number(text).toLocaleString('en-US') : text
}
