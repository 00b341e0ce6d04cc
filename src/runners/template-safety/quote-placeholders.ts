type Context = 'plain' | 'paren' | 'double' | 'single' | 'backtick' | 'arithmetic'

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
      if (stack.includes('arithmetic') || inTestArithmetic(script, index, match[0].length)) {
        throw new UnsafePlaceholderError(
          `{${match[1]}} is inside an arithmetic expression (\`$((…))\`, \`((…))\`, \`let\`, \`[[ … -eq … ]]\`), where bash evaluates a variable's text as code`
        )
      }
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
    } else if (char === '$' && next === '(' && script[index + 2] === '(') {
      stack.push('arithmetic')
      out += '$(('
      index += 3
      continue
    } else if (context === 'arithmetic' && char === ')' && next === ')') {
      stack.pop()
      out += '))'
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
    } else if (char === '(' && next === '(' && context !== 'arithmetic') {
      stack.push('arithmetic')
      out += '(('
      index += 2
      continue
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

/** Whether the placeholder at `index` (`length` long) is in a `let …` command or is a number operand of `[[ … -eq … ]]`. */
function inTestArithmetic(script: string, index: number, length: number): boolean {
  const lineStart = script.lastIndexOf('\n', index - 1) + 1
  const before = script.slice(lineStart, index)
  if (/(?:^|[;&|(\s])let\s[^;&|]*$/.test(before)) return true
  const open = before.lastIndexOf('[[')
  if (open === -1 || before.indexOf(']]', open) !== -1) return false
  const operator = '-(?:eq|ne|lt|le|gt|ge)'
  return new RegExp(`\\s${operator}\\s+["']?$`).test(before) || new RegExp(`^["']?\\s+${operator}\\s`).test(script.slice(index + length))
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
