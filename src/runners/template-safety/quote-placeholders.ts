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
  return new Quoting(script, variables).run()
}

/** One script being quoted: what is written so far, where it stands, the quoting it is in, the heredocs to come. */
class Quoting {
  private out = ''
  private index = 0
  private readonly stack: Context[] = ['plain']
  private pending: Heredoc[] = []

  constructor(
    private readonly script: string,
    private readonly variables: Record<string, string>
  ) {}

  run(): string {
    while (this.index < this.script.length) {
      if (this.placeholder() || this.token()) continue
      this.out += this.script[this.index]!
      this.index++
    }
    return this.out
  }

  private get context(): Context {
    return this.stack[this.stack.length - 1]!
  }

  /** Copy `text` as it stands and move past it. */
  private take(text: string): true {
    this.out += text
    this.index += text.length
    return true
  }

  /** A placeholder here becomes its variable's reference, quoted for where it stands: whether there was one. */
  private placeholder(): boolean {
    placeholder.lastIndex = this.index
    const match = placeholder.exec(this.script)
    if (!match) return false
    if (this.stack.includes('arithmetic') || inTestArithmetic(this.script, this.index, match[0].length)) {
      throw new UnsafePlaceholderError(
        `{${match[1]}} is inside an arithmetic expression (\`$((…))\`, \`((…))\`, \`let\`, \`[[ … -eq … ]]\`), where bash evaluates a variable's text as code`
      )
    }
    this.out += reference(this.variables[match[1]!]!, this.context)
    this.index += match[0].length
    return true
  }

  /**
   * What the character here opens or closes (a quote, a substitution, an arithmetic expression, a comment, a
   * heredoc): whether this copied it and moved on already; if not, the caller copies the one character.
   */
  private token(): boolean {
    const {script, index, stack, context} = this
    const char = script[index]!
    const next = script[index + 1]
    if (context === 'single') {
      if (char === "'") stack.pop()
      return false
    }
    if (char === '\\' && next !== undefined) return this.take(char + next)
    if (char === '$' && next === '(' && script[index + 2] === '(') {
      stack.push('arithmetic')
      return this.take('$((')
    }
    if (context === 'arithmetic' && char === ')' && next === ')') {
      stack.pop()
      return this.take('))')
    }
    if (context === 'double') return this.inDouble(char, next)
    if (char === '#' && (index === 0 || wordStart.test(script[index - 1]!))) {
      const end = script.indexOf('\n', index)
      return this.take(script.slice(index, end === -1 ? script.length : end))
    }
    return this.outsideQuotes(char, next)
  }

  /** Inside "…": its end, a backtick or a `$(` opens. */
  private inDouble(char: string, next: string | undefined): boolean {
    if (char === '"') this.stack.pop()
    else if (char === '`') this.stack.push('backtick')
    else if (char === '$' && next === '(') {
      this.stack.push('paren')
      return this.take('$(')
    }
    return false
  }

  /** Outside quotes: a quote, a backtick, `((`, a parenthesis, a heredoc's operator, the line's end before heredocs. */
  private outsideQuotes(char: string, next: string | undefined): boolean {
    const {script, index, stack, context} = this
    if (char === "'") stack.push('single')
    else if (char === '"') stack.push('double')
    else if (char === '`') {
      if (context === 'backtick') stack.pop()
      else stack.push('backtick')
    } else if (char === '(' && next === '(' && context !== 'arithmetic') {
      stack.push('arithmetic')
      return this.take('((')
    } else if (char === '(') stack.push('paren')
    else if (char === ')' && context === 'paren') stack.pop()
    else if (char === '<' && next === '<' && script[index + 2] !== '<') return this.heredocOperator()
    else if (char === '\n' && this.pending.length > 0) return this.heredocBodies()
    return false
  }

  /** `<<WORD`, `<<-WORD`: its body follows the line (`heredocBodies`). Whether it was one. */
  private heredocOperator(): boolean {
    const operator = /<<(-?)[ \t]*((?:'[^']*'|"[^"]*"|\\.|[^\s;&|()<>])+)/y
    operator.lastIndex = this.index
    const found = operator.exec(this.script)
    if (!found) return false
    const word = found[2]!
    this.pending.push({delimiter: word.replace(/['"\\]/g, ''), quoted: /['"\\]/.test(word), tabs: found[1] === '-'})
    return this.take(found[0])
  }

  /** The line's end, then the bodies of the heredocs it announced, placeholders replaced. */
  private heredocBodies(): true {
    this.take('\n')
    for (const heredoc of this.pending) {
      const body = readHeredoc(this.script, this.index, heredoc, this.variables)
      this.out += body.text
      this.index = body.end
    }
    this.pending = []
    return true
  }
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
