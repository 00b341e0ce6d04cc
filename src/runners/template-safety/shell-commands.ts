import type {ShellScan, ShellWord} from './shell-scan.js'
import {anyPlaceholder, WordReader, type Scanner} from './shell-words.js'

export type {ShellCommand, ShellScan, ShellWord} from './shell-scan.js'

/**
 * Read a POSIX (bash) script into its simple commands, as far as telling
 * where prompt text can go needs: words split as the shell splits them,
 * quotes, `$…` expansions, `$(…)`, backticks, `<(…)`, heredocs, here-strings,
 * redirections, pipelines and lists. Taint starts at the placeholders and at
 * the variables in `tainted`. Not a full shell parser: where it cannot tell,
 * the caller refuses.
 */
export function scanShell(text: string, tainted: ReadonlySet<string>): ShellScan {
  const scanner: Scanner = {script: text, scan: {commands: [], problems: [], functions: new Set()}, pipelines: 0, isTainted: (name) => tainted.has(name)}
  new CommandList(scanner).read(0, undefined)
  return scanner.scan
}

/** A heredoc announced on a line (`<<EOF`), whose body starts on the next. */
interface Heredoc {
  delimiter: string
  quoted: boolean
  strip: boolean
  /** Mark the command it belongs to as reading prompt text. */
  command: () => void
}

/** One command list (the script, or the inside of `$(…)`, a backtick or `<(…)`): the word and command being read. */
class CommandList extends WordReader {
  private anyTainted = false
  private words: ShellWord[] = []
  private stdinTainted = false
  private redirect: '' | 'in' | 'out' | 'herestring' = ''
  private pipeline: number
  private readonly heredocs: Heredoc[] = []

  constructor(scanner: Scanner) {
    super(scanner)
    this.pipeline = ++scanner.pipelines
  }

  /** Parse a command list from `start` until `stop` (a `)` or a backtick) or the end; returns where it stopped. */
  read(start: number, stop: string | undefined): {end: number; tainted: boolean} {
    let index = start
    while (index < this.script.length) {
      // A placeholder starts with `{`, never with `stop`: which is tested first does not matter.
      if (stop !== undefined && this.script[index] === stop) {
        this.endCommand(true)
        return {end: index + 1, tainted: this.anyTainted}
      }
      index = this.placeholderAt(index) ?? this.token(index)
    }
    this.endCommand(true)
    return {end: index, tainted: this.anyTainted}
  }

  protected inner(start: number, stop: string): {end: number; tainted: boolean} {
    return new CommandList(this.scanner).read(start, stop)
  }

  private endWord(): void {
    if (!this.word) return
    const done = this.word
    this.word = undefined
    if (this.redirect === 'herestring' || this.redirect === 'in') this.stdinTainted ||= done.tainted
    if (this.redirect !== '') {
      this.redirect = ''
      return
    }
    this.words.push(done)
  }

  private endCommand(nextPipeline: boolean): void {
    this.endWord()
    const words = this.words
    if (words.length > 0 || this.stdinTainted) {
      this.scanner.scan.commands.push({words, stdinTainted: this.stdinTainted, pipeline: this.pipeline})
      this.anyTainted ||= this.stdinTainted || words.some((w) => w.tainted)
      const first = words[0]?.text
      const match = first === undefined ? null : /^([A-Za-z_][A-Za-z0-9_.-]*)\(\)$/.exec(first)
      const functions = this.scanner.scan.functions
      if (match) functions.add(match[1]!)
      if (first === 'function' && words[1]) functions.add(words[1].text.replace(/\(\)$/, ''))
      if (words[1]?.text === '()' && first) functions.add(first)
    }
    this.words = []
    this.stdinTainted = false
    if (nextPipeline) this.pipeline = ++this.scanner.pipelines
  }

  /** What stands at `index` outside quotes (not a placeholder, not the list's end); returns the index after it. */
  private token(index: number): number {
    const script = this.script
    const char = script[index]!
    const next = script[index + 1]
    if (char === ' ' || char === '\t') {
      this.endWord()
      return index + 1
    }
    if (char === '\n') return this.newline(index)
    if (char === '#' && this.word === undefined) {
      const end = script.indexOf('\n', index)
      return end === -1 ? script.length : end
    }
    if (char === '\\') {
      if (next !== '\n') this.part(next ?? '', false, true)
      return index + 2
    }
    if (char === "'") return this.singleQuoted(index)
    if (char === '"') return this.double(index + 1, '"')
    if (char === '$' || char === '`') return this.expansion(index, false)
    if (char === ';' || char === '&' || (char === '|' && next === '|')) return this.controlOperator(index)
    if (char === '|') {
      this.endCommand(false)
      return index + (next === '&' ? 2 : 1)
    }
    if (char === '(' || char === ')') return this.paren(index)
    if (char === '<' || char === '>') return this.redirection(index)
    this.part(char, false, true)
    return index + 1
  }

  /** A line's end: the command ends, and the heredocs its line announced follow. */
  private newline(index: number): number {
    this.endCommand(true)
    let at = index + 1
    for (const heredoc of this.heredocs.splice(0)) at = this.readHeredoc(at, heredoc)
    return at
  }

  /** `;`, `&`, `&&`, `||`, `;;` (the command ends), or `&>`/`&>>` (a redirection). */
  private controlOperator(index: number): number {
    const char = this.script[index]!
    const next = this.script[index + 1]
    if (char === '&' && next === '>') {
      this.endWord()
      this.redirect = 'out'
      return index + (this.script[index + 2] === '>' ? 3 : 2)
    }
    this.endCommand(true)
    return index + ((char === '&' && next === '&') || (char === '|' && next === '|') || (char === ';' && next === ';') ? 2 : 1)
  }

  /** `((…))` at a command's start, a function definition's `name()`, or a subshell's parenthesis. */
  private paren(index: number): number {
    const char = this.script[index]!
    const next = this.script[index + 1]
    if (char === '(' && next === '(' && this.word === undefined && this.words.length === 0) return this.arithmetic(index + 2, '))')
    if (char === '(' && this.word !== undefined && !this.word.text.includes('=')) {
      // `name()`: a function definition's head.
      this.part('()', false, true)
      return this.script.startsWith('()', index) ? index + 2 : index + 1
    }
    this.endCommand(true)
    return index + 1
  }

  /** `<(…)`/`>(…)`, or a redirection: `<`, `>`, `>>`, `<&`, `>|`, `2>`, a here-string `<<<` or a heredoc `<<`. */
  private redirection(index: number): number {
    const script = this.script
    const char = script[index]!
    const next = script[index + 1]
    if (next === '(') {
      const inner = this.inner(index + 2, ')')
      this.part('/dev/fd/63', inner.tainted, false)
      return inner.end
    }
    // `2>` and the like: the digits were the fd, not a word.
    if (this.word && /^\d+$/.test(this.word.text) && this.word.literal) this.word = undefined
    this.endWord()
    if (char === '<' && next === '<' && script[index + 2] === '<') {
      this.redirect = 'herestring'
      return index + 3
    }
    if (char === '<' && next === '<') return this.heredocOperator(index)
    this.redirect = char === '<' && next !== '>' && next !== '&' ? 'in' : 'out'
    return index + (next === '>' || next === '&' || next === '|' ? 2 : 1)
  }

  /** `<<WORD` or `<<-WORD`: its body is read after the line ends (`newline`). */
  private heredocOperator(index: number): number {
    const operator = /<<(-?)[ \t]*((?:'[^'\n]*'|"[^"\n]*"|\\.|[^\s;&|()<>])+)/y
    operator.lastIndex = index
    const found = operator.exec(this.script)
    if (!found) return index + 2
    const raw = found[2]!
    const owner = this.words
    this.heredocs.push({
      delimiter: raw.replace(/['"\\]/g, ''),
      quoted: /['"\\]/.test(raw),
      strip: found[1] === '-',
      command: () => {
        // The heredoc belongs to the command on its line, which may already be finished.
        const command = this.scanner.scan.commands.find((candidate) => candidate.words === owner)
        if (command) command.stdinTainted = true
        else this.stdinTainted = true
      }
    })
    return index + found[0].length
  }

  /** A heredoc body from `start`; returns the index after its delimiter line. */
  private readHeredoc(start: number, heredoc: Heredoc): number {
    const {body, end} = heredocBody(this.script, start, heredoc)
    const saved = this.word
    this.word = undefined
    if (heredoc.quoted) this.part(body, anyPlaceholder.test(body), true)
    else {
      // An unquoted heredoc expands like "…": scan it as such.
      const outer = this.scanner.script
      this.scanner.script = body
      this.double(0, '')
      this.scanner.script = outer
    }
    const bodyTainted = (this.word as ShellWord | undefined)?.tainted ?? false
    this.word = saved
    if (bodyTainted) heredoc.command()
    return end
  }
}

/** A heredoc's body in `script` from `start` up to its delimiter line, and the index after that line. */
function heredocBody(script: string, start: number, heredoc: Heredoc): {body: string; end: number} {
  let at = start
  let body = ''
  while (at < script.length) {
    const newline = script.indexOf('\n', at)
    const end = newline === -1 ? script.length : newline + 1
    const line = script.slice(at, end).replace(/\r?\n$/, '')
    if ((heredoc.strip ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) return {body, end}
    body += line + '\n'
    at = end
  }
  return {body, end: at}
}
