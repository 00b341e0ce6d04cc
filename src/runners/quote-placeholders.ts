type Context = 'plain' | 'paren' | 'double' | 'single' | 'backtick'

interface Heredoc {
  delimiter: string
  quoted: boolean
  tabs: boolean
}

const placeholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/y
const wordStart = /[\s;&|()<>]/

/** A placeholder that no variable reference can fill safely where it stands. */
export class UnsafePlaceholderError extends Error {}

/**
 * Turn each placeholder in a POSIX shell script into a reference to its
 * environment variable, quoted for where it stands, so its value reaches the
 * script as one word and is never read as shell code:
 *
 *   unquoted, in `$(…)` or backticks   {prompt}   →  "${MDPLAN_PROMPT}"
 *   inside "…" or an unquoted heredoc  "{prompt}" →  "${MDPLAN_PROMPT}"  (just the reference)
 *   inside '…'                         '{prompt}' →  ''"${MDPLAN_PROMPT}"''  (close, reference, reopen)
 *
 * A quoted heredoc (`<<'EOF'`) expands nothing, so a placeholder there cannot be
 * filled without splicing text: that is refused with UnsafePlaceholderError.
 * `variables` maps a placeholder's name to its variable.
 */
export function quotePlaceholders(script: string, variables: Record<string, string>): string {
  let out = ''
  const stack: Context[] = ['plain']
  let pending: Heredoc[] = []
  let index = 0
  while (index < script.length) {
    const context = stack[stack.length - 1]!
    placeholder.lastIndex = index
    const match = placeholder.exec(script)
    if (match) {
      out += reference(variables[match[1]!]!, context)
      index += match[0].length
      continue
    }
    const char = script[index]!
    const next = script[index + 1]
    if (context === 'single') {
      if (char === "'") stack.pop()
    } else if (char === '\\' && next !== undefined) {
      out += char + next
      index += 2
      continue
    } else if (context === 'double') {
      if (char === '"') stack.pop()
      else if (char === '`') stack.push('backtick')
      else if (char === '$' && next === '(') {
        stack.push('paren')
        out += '$('
        index += 2
        continue
      }
    } else if (char === '#' && (index === 0 || wordStart.test(script[index - 1]!))) {
      const end = script.indexOf('\n', index)
      const stop = end === -1 ? script.length : end
      out += script.slice(index, stop)
      index = stop
      continue
    } else if (char === "'") stack.push('single')
    else if (char === '"') stack.push('double')
    else if (char === '`') {
      if (context === 'backtick') stack.pop()
      else stack.push('backtick')
    } else if (char === '(') stack.push('paren')
    else if (char === ')' && context === 'paren') stack.pop()
    else if (char === '<' && next === '<' && script[index + 2] !== '<') {
      const operator = /<<(-?)[ \t]*((?:'[^']*'|"[^"]*"|\\.|[^\s;&|()<>])+)/y
      operator.lastIndex = index
      const found = operator.exec(script)
      if (found) {
        const word = found[2]!
        pending.push({delimiter: word.replace(/['"\\]/g, ''), quoted: /['"\\]/.test(word), tabs: found[1] === '-'})
        out += found[0]
        index += found[0].length
        continue
      }
    } else if (char === '\n' && pending.length > 0) {
      out += char
      index++
      for (const heredoc of pending) {
        const body = readHeredoc(script, index, heredoc, variables)
        out += body.text
        index = body.end
      }
      pending = []
      continue
    }
    out += char
    index++
  }
  return out
}

function reference(variable: string, context: Context): string {
  if (context === 'double') return `\${${variable}}`
  if (context === 'single') return `'"\${${variable}}"'`
  return `"\${${variable}}"`
}

/** A heredoc's body from `start` to past its delimiter line, placeholders replaced. */
function readHeredoc(script: string, start: number, heredoc: Heredoc, variables: Record<string, string>): {text: string; end: number} {
  let text = ''
  let index = start
  while (index < script.length) {
    const newline = script.indexOf('\n', index)
    const end = newline === -1 ? script.length : newline + 1
    const line = script.slice(index, end)
    const bare = line.replace(/\r?\n$/, '')
    if ((heredoc.tabs ? bare.replace(/^\t+/, '') : bare) === heredoc.delimiter) return {text: text + line, end}
    text += line.replace(/\{(prompt_file|prompt|agent_id|agent|plan)\}/g, (_, name: string) => {
      if (heredoc.quoted) {
        throw new UnsafePlaceholderError(
          `{${name}} is inside a quoted heredoc (<<'${heredoc.delimiter}'), which expands nothing: use an unquoted heredoc, or "$${variables[name]}"`
        )
      }
      return `\${${variables[name]}}`
    })
    index = end
  }
  return {text, end: index}
}
