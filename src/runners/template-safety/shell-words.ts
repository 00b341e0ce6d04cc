import {bracedTaint, reachesPrompt} from './expansion-taint.js'
import type {ShellScan, ShellWord} from './shell-scan.js'

const placeholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/y
/** Any placeholder, anywhere in a text. */
export const anyPlaceholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/
const nameAt = /[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]/y

/** What the command lists of one scan (`scanShell`) share. */
export interface Scanner {
  /** The text being read: rebound while a heredoc body is scanned as if it were a double-quoted string. */
  script: string
  readonly scan: ShellScan
  /** Pipelines numbered so far. */
  pipelines: number
  readonly isTainted: (name: string) => boolean
}

/**
 * The word being read, and what goes into it: placeholders, quotes, `$…` expansions and substitutions, with
 * whether prompt text reaches each part. The commands and lists around the words are `CommandList`'s
 * (shell-commands.ts), which a substitution starts through `inner`.
 */
export abstract class WordReader {
  protected word: ShellWord | undefined

  constructor(protected readonly scanner: Scanner) {}

  protected get script(): string {
    return this.scanner.script
  }

  /** A command list inside this one (`$(…)`, a backtick, `<(…)`), from `start` to `stop`. */
  protected abstract inner(start: number, stop: string): {end: number; tainted: boolean}

  protected part(text: string, isTainted: boolean, literal: boolean, unquoted = false): void {
    this.word ??= {text: '', tainted: false, unquotedTaint: false, literal: true}
    this.word.text += text
    this.word.tainted ||= isTainted
    this.word.unquotedTaint ||= isTainted && unquoted
    this.word.literal &&= literal
  }

  /** A placeholder at `at`, taken into the word as prompt text: the index after it, or undefined when there is none. */
  protected placeholderAt(at: number): number | undefined {
    placeholder.lastIndex = at
    const match = placeholder.exec(this.script)
    if (!match) return undefined
    this.part(match[0], true, false)
    return at + match[0].length
  }

  /** '…' from its opening quote; returns the index after the closing one. */
  protected singleQuoted(index: number): number {
    const end = this.script.indexOf("'", index + 1)
    const stopAt = end === -1 ? this.script.length : end
    const inner = this.script.slice(index + 1, stopAt)
    this.part(inner, anyPlaceholder.test(inner), true)
    return stopAt + 1
  }

  /** Inside "…" (or a heredoc body when `close` is ''), from `start`; returns the index after the closing quote. */
  protected double(start: number, close: string): number {
    let at = start
    while (at < this.script.length) {
      const after = this.placeholderAt(at)
      if (after !== undefined) {
        at = after
        continue
      }
      const char = this.script[at]!
      if (close !== '' && char === close) return at + 1
      if (char === '\\') {
        this.part(this.script[at + 1] ?? '', false, true)
        at += 2
      } else if (char === '$' || char === '`') {
        at = this.expansion(at, true)
      } else {
        this.part(char, false, true)
        at++
      }
    }
    return at
  }

  /** A `$…` expansion or a backtick substitution at `at`; returns the index after it. */
  protected expansion(at: number, quoted: boolean): number {
    const script = this.script
    if (script[at] === '`') {
      const inner = this.inner(at + 1, '`')
      this.part('`…`', inner.tainted, false, !quoted)
      return inner.end
    }
    const next = script[at + 1]
    if (next === '(' && script[at + 2] === '(') return this.arithmetic(at + 3, '))')
    if (next === '[') return this.arithmetic(at + 2, ']')
    if (next === '(') {
      const inner = this.inner(at + 2, ')')
      this.part('$(…)', inner.tainted, false, !quoted)
      return inner.end
    }
    if (next === "'") {
      let end = at + 2
      while (end < script.length && script[end] !== "'") end += script[end] === '\\' ? 2 : 1
      this.part(script.slice(at + 2, end), false, true)
      return end + 1
    }
    if (next === '{') return this.braced(at + 2, quoted)
    nameAt.lastIndex = at + 1
    const name = nameAt.exec(script)
    if (!name) {
      this.part('$', false, true)
      return at + 1
    }
    this.part(`$${name[0]}`, this.scanner.isTainted(name[0]), false, !quoted)
    return at + 1 + name[0].length
  }

  /** `${…}` from after the brace: tainted names in an indirection, a subscript or an offset are evaluated as code. */
  protected braced(start: number, quoted: boolean): number {
    const script = this.script
    let depth = 1
    let end = start
    while (end < script.length && depth > 0) {
      if (script[end] === '{') depth++
      else if (script[end] === '}') depth--
      if (depth > 0) end += script[end] === '\\' ? 2 : 1
    }
    const body = script.slice(start, end)
    const found = bracedTaint(body, this.scanner.isTainted)
    if (found.problem) this.scanner.scan.problems.push(found.problem)
    this.part(`\${${body}}`, found.tainted, false, !quoted && found.tainted)
    return end + 1
  }

  /** An arithmetic expression from `start` to `close`: prompt text there is evaluated as code. */
  protected arithmetic(start: number, close: string): number {
    let end = this.script.indexOf(close, start)
    if (end === -1) end = this.script.length
    const body = this.script.slice(start, end)
    if (reachesPrompt(body, this.scanner.isTainted)) this.scanner.scan.problems.push('prompt text inside an arithmetic expression (`$((…))`, `((…))`), which bash evaluates as code')
    this.part('0', false, false)
    return end + close.length
  }
}
