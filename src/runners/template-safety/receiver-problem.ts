import {codePositions} from './code-positions.js'
import {agentClis, dataUtilities, knownProgramName, isNamedDataProgram, plainSed, stdinFilters} from './data-programs.js'

/** A word of a command, and whether prompt text can reach it. */
export interface ReachWord {
  text: string
  tainted: boolean
}

export interface ReceiverOptions {
  /** Programs the plan names in `template_data_programs`. */
  named: readonly string[]
  /**
   * The template's own argv: a POSIX shell's `-c` script there gets its
   * placeholders as quoted variables (`quotePlaceholders`) and is checked as
   * a script (`scriptProblem`), so a placeholder in it is not prompt text
   * reaching the shell. Inside a script, a tainted script is refused.
   */
  scriptsAreQuoted: boolean
}

/**
 * Why prompt text in `words` (or on the command's stdin) could reach a
 * program that mdplan does not know takes it as data, or undefined. Safe by
 * construction: the command is followed through the wrappers mdplan knows
 * (`timeout`, `env`, `nice`, `xargs`…) to the program it starts, and prompt
 * text may reach only
 *
 *  - a program the plan names in `template_data_programs`, as any argument;
 *  - a data utility (`printf`, `echo`, `cat`…), as any argument;
 *  - an agent CLI (`claude`, `codex`, `gemini`, `opencode`), after `--` or as
 *    `--prompt={x}`-style value of an option that takes text;
 *  - a POSIX shell, as a positional parameter after its `-c` script (the
 *    script is checked on its own);
 *  - on stdin, a data utility, a filter (`tee`, `sort`, a plain `sed s/…/…/`),
 *    an agent CLI or a named program.
 *
 * Anything else is refused, however harmless it may be: a program mdplan
 * does not know (`sg`, `tmux`, `git -c`, `make --eval`) could run it. Pure.
 */
export function receiverProblem(words: readonly ReachWord[], stdinTainted: boolean, options: ReceiverOptions): string | undefined {
  let at = 0
  for (;;) {
    const program = words[at]
    if (program === undefined) return undefined
    const args = words.slice(at + 1)
    if (!program.tainted && !stdinTainted && !args.some((word) => word.tainted)) return undefined
    if (program.tainted) return `prompt text would name the program to run (\`${program.text}\`)`
    if (isNamedDataProgram(program.text, options.named)) return undefined
    const name = knownProgramName(program.text)
    if (name === undefined) return unknownProgram(program.text, args)
    if (dataUtilities.has(name)) return undefined
    if (stdinFilters.has(name)) {
      const tainted = args.find((word) => word.tainted)
      if (tainted) return `\`${name}\` takes prompt text only on its stdin, not as an argument (\`${tainted.text}\`)`
      if (name === 'sed' && !plainSed(args.map((word) => word.text))) return `\`sed\` reads prompt text on its stdin with a script other than a plain \`s/…/…/\` (its \`e\` command runs the text as a command)`
      return undefined
    }
    if (Object.hasOwn(agentClis, name)) return agentCliProblem(name, args)
    const next = nextProgram(words, at, stdinTainted, options)
    if (next === 'done') return undefined
    if (typeof next === 'string') return next
    if (next === undefined) return unknownProgram(program.text, args)
    at = next
  }
}

/** Where `words[at]`, a program the code table knows (a wrapper, a shell, an interpreter), takes the words that follow; a problem; or undefined when it is not such a program. */
// 'done' is a sentinel beside a problem's text (a string): written out for the reader, redundant for the type.
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents
function nextProgram(words: readonly ReachWord[], at: number, stdinTainted: boolean, options: ReceiverOptions): number | 'done' | string | undefined {
  const texts = words.slice(at).map((word) => word.text)
  const first = codePositions(texts).find((position) => position.index > 0)
  if (first === undefined) return undefined
  const index = at + first.index
  const before = words.slice(at + 1, index).find((word) => word.tainted)
  if (before) return `\`${first.program}\` reads \`${before.text}\` as one of its own options or operands, not as data for the program it runs`
  if (first.kind === 'program') return index
  if (first.kind === 'script') {
    if (words[index]!.tainted && !options.scriptsAreQuoted) return `\`${first.program}\` runs prompt text as its script (\`${words[index]!.text}\`)`
    // A script reading a pipe: mdplan does not follow stdin into it (`… | sh -c 'sh'` would run it).
    if (stdinTainted) return `feeds prompt text to \`${first.program} -c\` on its stdin, which mdplan does not follow into the script`
    return 'done'
  }
  // Code of an interpreter: a script file the plan names (`sh ./agent.sh {prompt}`) is the program; other code is not known to take data.
  const code = words[index]!
  if (!code.tainted && isNamedDataProgram(code.text, options.named)) return 'done'
  return `\`${first.program}\` runs \`${code.text}\` as code, which mdplan cannot read to see what it does with prompt text: if it is a script file that takes it as data, name it in front matter \`template_data_programs: [${code.text}]\``
}

function agentCliProblem(name: string, args: readonly ReachWord[]): string | undefined {
  const end = args.findIndex((word) => word.text === '--')
  for (const [index, word] of args.entries()) {
    if (!word.tainted || (end !== -1 && index > end)) continue
    const inline = /^(--[A-Za-z0-9][A-Za-z0-9-]*)=/.exec(word.text)
    if (inline && agentClis[name]!.includes(inline[1]!)) continue
    return `\`${name}\` would read \`${word.text}\` with its option parser (prompt text that begins with \`-\` becomes an option, and ${name}'s options can run commands): put it after \`--\` (\`${name} … -- ${word.text}\`)`
  }
  return undefined
}

function unknownProgram(program: string, args: readonly ReachWord[]): string {
  const tainted = args.find((word) => word.tainted)
  const what = tainted ? `\`${tainted.text}\`` : 'prompt text on its stdin'
  return `\`${program}\` gets ${what} and is not a program mdplan knows takes it as data (any program may run its arguments: \`sg\`, \`tmux\`, \`git -c\`, \`make --eval\` do): if \`${program}\` takes it as data, name it in front matter \`template_data_programs: [${program}]\``
}
