/**
 * Text from an issue queue, made safe to place inside a generated prompt
 * block, where every line is indented as part of the block: line endings
 * become `\n` (a lone `\r` ends a Markdown line too), control characters
 * other than tab and newline are written as `\u0007`-style escapes (a NUL
 * would make the plan a binary file; a form feed or a vertical tab is not
 * whitespace to Markdown), and an unpaired surrogate, which no UTF-8 file
 * can hold, becomes U+FFFD. Everything else stays as written.
 */
export function asData(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}

/** One line of data: asData, then every run of whitespace (newlines included) one space. */
export function oneLine(text: string): string {
  return asData(text).replace(/\s+/g, ' ').trim()
}
