import {bracedTaint, reachesPrompt} from './expansion-taint.js'
import type {ShellCommand, ShellScan, ShellWord} from './shell-scan.js'

export type {ShellCommand, ShellScan, ShellWord} from './shell-scan.js'

const placeholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/y
const nameAt = /[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]/y

/**
 * Read a POSIX (bash) script into its simple commands, as far as telling
 * where prompt text can go needs: words split as the shell splits them,
 * quotes, `$…` expansions, `$(…)`, backticks, `<(…)`, heredocs, here-strings,
 * redirections, pipelines and lists. Taint starts at the placeholders and at
 * the variables in `tainted`. Not a full shell parser: where it cannot tell,
 * the caller refuses.
 */
export function scanShell(text: string, tainted: ReadonlySet<string>): ShellScan {
  // Rebound while a heredoc body is scanned as if it were a double-quoted string.
  let script = text
  const scan: ShellScan = {commands: [], problems: [], functions: new Set()}
  let pipelines = 0
  const isTainted = (name: string): boolean => tainted.has(name)

  /** Parse a command list from `start` until `stop` (a `)` or a backtick) or the end; returns where it stopped. */
  function list(start: number, stop: string | undefined): {end: number; tainted: boolean} {
    let index = start
    let anyTainted = false
    let words: ShellWord[] = []
    let word: ShellWord | undefined
    let stdinTainted = false
    let redirect: '' | 'in' | 'out' | 'herestring' = ''
    let pipeline = ++pipelines
    const heredocs: Array<{delimiter: string; quoted: boolean; strip: boolean; command: () => void}> = []
    let current: ShellCommand | undefined

    const part = (text: string, isTainted: boolean, literal: boolean, unquoted = false): void => {
      word ??= {text: '', tainted: false, unquotedTaint: false, literal: true}
      word.text += text
      word.tainted ||= isTainted
      word.unquotedTaint ||= isTainted && unquoted
      word.literal &&= literal
    }
    const endWord = (): void => {
      if (!word) return
      const done = word
      word = undefined
      if (redirect === 'herestring' || redirect === 'in') stdinTainted ||= done.tainted
      if (redirect !== '') {
        redirect = ''
        return
      }
      words.push(done)
    }
    const endCommand = (nextPipeline: boolean): void => {
      endWord()
      if (words.length > 0 || stdinTainted) {
        current = {words, stdinTainted, pipeline}
        scan.commands.push(current)
        anyTainted ||= stdinTainted || words.some((w) => w.tainted)
        const first = words[0]?.text
        const match = first === undefined ? null : /^([A-Za-z_][A-Za-z0-9_.-]*)\(\)$/.exec(first)
        if (match) scan.functions.add(match[1]!)
        if (first === 'function' && words[1]) scan.functions.add(words[1].text.replace(/\(\)$/, ''))
        if (words[1]?.text === '()' && first) scan.functions.add(first)
      }
      words = []
      stdinTainted = false
      if (nextPipeline) pipeline = ++pipelines
    }

    while (index < script.length) {
      placeholder.lastIndex = index
      const match = placeholder.exec(script)
      if (match) {
        part(match[0], true, false)
        index += match[0].length
        continue
      }
      const char = script[index]!
      const next = script[index + 1]
      if (stop !== undefined && char === stop) {
        endCommand(true)
        return {end: index + 1, tainted: anyTainted}
      }
      if (char === ' ' || char === '\t') {
        endWord()
        index++
      } else if (char === '\n') {
        endCommand(true)
        index++
        for (const heredoc of heredocs.splice(0)) index = readHeredoc(index, heredoc)
      } else if (char === '#' && word === undefined) {
        const end = script.indexOf('\n', index)
        index = end === -1 ? script.length : end
      } else if (char === '\\') {
        if (next !== '\n') part(next ?? '', false, true)
        index += 2
      } else if (char === "'") {
        const end = script.indexOf("'", index + 1)
        const stopAt = end === -1 ? script.length : end
        const inner = script.slice(index + 1, stopAt)
        part(inner, /\{(prompt_file|prompt|agent_id|agent|plan)\}/.test(inner), true)
        index = stopAt + 1
      } else if (char === '"') {
        index = double(index + 1, '"')
      } else if (char === '$' || char === '`') {
        index = expansion(index, false)
      } else if (char === ';' || char === '&' || (char === '|' && next === '|')) {
        if (char === '&' && next === '>') {
          endWord()
          redirect = 'out'
          index += script[index + 2] === '>' ? 3 : 2
          continue
        }
        endCommand(true)
        index += (char === '&' && next === '&') || (char === '|' && next === '|') || (char === ';' && next === ';') ? 2 : 1
      } else if (char === '|') {
        endCommand(false)
        index += next === '&' ? 2 : 1
      } else if (char === '(' && next === '(' && word === undefined && words.length === 0) {
        index = arithmetic(index + 2, '))')
      } else if (char === '(' && word !== undefined && !word.text.includes('=')) {
        // `name()`: a function definition's head.
        part('()', false, true)
        index = script.startsWith('()', index) ? index + 2 : index + 1
      } else if (char === '(' || char === ')') {
        endCommand(true)
        index++
      } else if ((char === '<' || char === '>') && next === '(') {
        const inner = list(index + 2, ')')
        part('/dev/fd/63', inner.tainted, false)
        index = inner.end
      } else if (char === '<' || char === '>') {
        // `2>` and the like: the digits were the fd, not a word.
        if (word && /^\d+$/.test(word.text) && word.literal) word = undefined
        endWord()
        if (char === '<' && next === '<' && script[index + 2] === '<') {
          redirect = 'herestring'
          index += 3
        } else if (char === '<' && next === '<') {
          const operator = /<<(-?)[ \t]*((?:'[^'\n]*'|"[^"\n]*"|\\.|[^\s;&|()<>])+)/y
          operator.lastIndex = index
          const found = operator.exec(script)
          if (!found) {
            index += 2
            continue
          }
          const raw = found[2]!
          const owner = words
          heredocs.push({
            delimiter: raw.replace(/['"\\]/g, ''),
            quoted: /['"\\]/.test(raw),
            strip: found[1] === '-',
            command: () => {
              // The heredoc belongs to the command on its line, which may already be finished.
              const command = scan.commands.find((candidate) => candidate.words === owner)
              if (command) command.stdinTainted = true
              else stdinTainted = true
            }
          })
          index += found[0].length
        } else {
          redirect = char === '<' && next !== '>' && next !== '&' ? 'in' : 'out'
          index += next === '>' || next === '&' || next === '|' ? 2 : 1
        }
      } else {
        part(char, false, true)
        index++
      }
    }
    endCommand(true)
    return {end: index, tainted: anyTainted}

    /** Inside "…" (or a heredoc body when `close` is ''), from `start`; returns the index after the closing quote. */
    function double(start: number, close: string): number {
      let at = start
      while (at < script.length) {
        placeholder.lastIndex = at
        const found = placeholder.exec(script)
        if (found) {
          part(found[0], true, false)
          at += found[0].length
          continue
        }
        const char = script[at]!
        if (close !== '' && char === close) return at + 1
        if (char === '\\') {
          part(script[at + 1] ?? '', false, true)
          at += 2
        } else if (char === '$' || char === '`') {
          at = expansion(at, true)
        } else {
          part(char, false, true)
          at++
        }
      }
      return at
    }

    /** A `$…` expansion or a backtick substitution at `at`; returns the index after it. */
    function expansion(at: number, quoted: boolean): number {
      const char = script[at]!
      if (char === '`') {
        const inner = list(at + 1, '`')
        part('`…`', inner.tainted, false, !quoted)
        return inner.end
      }
      const next = script[at + 1]
      if (next === '(' && script[at + 2] === '(') return arithmetic(at + 3, '))')
      if (next === '[') return arithmetic(at + 2, ']')
      if (next === '(') {
        const inner = list(at + 2, ')')
        part('$(…)', inner.tainted, false, !quoted)
        return inner.end
      }
      if (next === "'") {
        let end = at + 2
        while (end < script.length && script[end] !== "'") end += script[end] === '\\' ? 2 : 1
        part(script.slice(at + 2, end), false, true)
        return end + 1
      }
      if (next === '{') return braced(at + 2, quoted)
      nameAt.lastIndex = at + 1
      const name = nameAt.exec(script)
      if (!name) {
        part('$', false, true)
        return at + 1
      }
      const hit = isTainted(name[0])
      part(`$${name[0]}`, hit, false, !quoted)
      return at + 1 + name[0].length
    }

    /** `${…}` from after the brace: tainted names in an indirection, a subscript or an offset are evaluated as code. */
    function braced(start: number, quoted: boolean): number {
      let depth = 1
      let end = start
      while (end < script.length && depth > 0) {
        if (script[end] === '{') depth++
        else if (script[end] === '}') depth--
        if (depth > 0) end += script[end] === '\\' ? 2 : 1
      }
      const body = script.slice(start, end)
      const found = bracedTaint(body, isTainted)
      if (found.problem) scan.problems.push(found.problem)
      part(`\${${body}}`, found.tainted, false, !quoted && found.tainted)
      return end + 1
    }

    /** An arithmetic expression from `start` to `close`: prompt text there is evaluated as code. */
    function arithmetic(start: number, close: string): number {
      let end = script.indexOf(close, start)
      if (end === -1) end = script.length
      const body = script.slice(start, end)
      if (reachesPrompt(body, isTainted)) scan.problems.push('prompt text inside an arithmetic expression (`$((…))`, `((…))`), which bash evaluates as code')
      part('0', false, false)
      return end + close.length
    }

    /** A heredoc body from `start`; returns the index after its delimiter line. */
    function readHeredoc(start: number, heredoc: {delimiter: string; quoted: boolean; strip: boolean; command: () => void}): number {
      let at = start
      let body = ''
      while (at < script.length) {
        const newline = script.indexOf('\n', at)
        const end = newline === -1 ? script.length : newline + 1
        const line = script.slice(at, end).replace(/\r?\n$/, '')
        if ((heredoc.strip ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
          at = end
          break
        }
        body += line + '\n'
        at = end
      }
      const saved = word
      word = undefined
      if (heredoc.quoted) part(body, /\{(prompt_file|prompt|agent_id|agent|plan)\}/.test(body), true)
      else {
        const bodyScript = body
        // An unquoted heredoc expands like "…": scan it as such.
        const outer = script
        script = bodyScript
        double(0, '')
        script = outer
      }
      const bodyTainted = (word as ShellWord | undefined)?.tainted ?? false
      word = saved
      if (bodyTainted) heredoc.command()
      return at
    }
  }

  list(0, undefined)
  return scan
}
