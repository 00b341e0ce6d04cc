/**
 * `text` as one POSIX shell word, for a command mdplan prints for a person to
 * paste (`The next \`mdplan run <plan>\` resumes A`): a path may hold spaces,
 * quotes, `$x` or backticks, and pasted bare those would split the word or
 * run a command. Plain words stay as they are; anything else is put in single
 * quotes (nothing expands there), each `'` written as `'\''`. A path that
 * begins with `-` gets `./` first, so the command does not read it as an
 * option.
 */
export function shellWord(text: string): string {
  const word = text.startsWith('-') ? `./${text}` : text
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
