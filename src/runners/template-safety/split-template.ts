/**
 * Split a command template into argv the way a POSIX shell splits words, but
 * without running one: whitespace separates words; '…' is literal; "…" keeps
 * spaces and honours \" \\ \$ \` escapes; a backslash outside quotes escapes
 * the next character. No expansion of any kind happens.
 */
export function splitTemplate(template: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let index = 0
  while (index < template.length) {
    const char = template[index]!
    if (char === "'") {
      const end = template.indexOf("'", index + 1)
      if (end === -1) throw new Error(`unterminated ' in runner template: ${template}`)
      word += template.slice(index + 1, end)
      inWord = true
      index = end + 1
    } else if (char === '"') {
      index++
      for (;;) {
        if (index >= template.length) throw new Error(`unterminated " in runner template: ${template}`)
        const inner = template[index]!
        if (inner === '"') break
        if (inner === '\\' && index + 1 < template.length && '"\\$`'.includes(template[index + 1]!)) {
          word += template[index + 1]
          index += 2
        } else {
          word += inner
          index++
        }
      }
      inWord = true
      index++
    } else if (char === '\\' && index + 1 < template.length) {
      word += template[index + 1]
      inWord = true
      index += 2
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      index++
    } else {
      word += char
      inWord = true
      index++
    }
  }
  if (inWord) words.push(word)
  return words
}
