import {codePositions, stdinIsCode} from './code-positions.js'
import {receiverProblem} from './receiver-problem.js'
import {scanShell, type ShellCommand, type ShellScan, type ShellWord} from './shell-commands.js'

/** Variables through which a script can read text a person or an agent wrote (the prompt, its file, an answer). */
const textVariables = ['MDPLAN_PROMPT', 'MDPLAN_PROMPT_FILE', 'MDPLAN_ANSWER', 'MDPLAN_REVIEW', 'MDPLAN_PREVIOUS_FAILURE', 'MDPLAN_CHECKPOINT']
const positional = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '@', '*']
/** Reserved words: the command is what follows them. */
const keywords = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'time', 'function'])
/** Builtins that only print, test, move or read data: prompt text is safe as their argument (their exceptions below). */
const dataBuiltins = new Set(['echo', 'printf', ':', 'true', 'false', 'cd', 'pwd', 'exit', 'return', 'shift', 'wait', 'set', 'test', '[', 'kill', 'umask', 'pushd', 'popd', 'dirs', 'jobs', 'type'])
/** Builtins that declare variables: prompt text is safe only as a value (`local x="$1"`), never as a name or with -i/-n/-a/-A. */
const declarations = new Set(['export', 'local', 'declare', 'typeset', 'readonly'])
const arithmeticOperators = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

/**
 * Why a POSIX shell script in a template could run prompt text as code, or
 * undefined when it provably cannot. The rule is positive: prompt text (a
 * placeholder, which mdplan turns into a quoted variable; a positional
 * parameter when `positionalTainted`, the template passing a placeholder
 * after the script; `$MDPLAN_PROMPT` and the like; any variable assigned
 * from them) may only be a quoted argument of a builtin that only moves
 * data or of a program mdplan knows takes it as data (`receiverProblem`:
 * the data utilities, the agent CLIs after `--`, the programs the plan
 * names in `named`), or the stdin of one: not the command itself, not the
 * code of an interpreter
 * (`bash -c "$1"`, `python3 -c`, `eval`, `source`), not the stdin of a
 * program that reads code from it (`| bash`, `<<<` into `sh`), not a name or
 * an arithmetic expression bash evaluates, not a function of the script
 * (mdplan cannot follow it there), and never unquoted.
 */
export function scriptProblem(script: string, positionalTainted: boolean, inherited: ReadonlySet<string> = new Set(), named: readonly string[] = []): string | undefined {
  const base = new Set([...textVariables, ...inherited, ...(positionalTainted ? positional : [])])
  let tainted = base
  let scan = scanShell(script, tainted)
  // Taint flows through assignments; each round may add names, so scan again until none is new.
  for (let round = 0; round < 8; round++) {
    const more = new Set([...tainted, ...assignedNames(scan)])
    if (more.size === tainted.size) break
    tainted = more
    scan = scanShell(script, tainted)
  }
  if (scan.problems.length > 0) return scan.problems[0]
  const pipelineTainted = new Set<number>()
  for (const command of scan.commands) {
    const upstream = pipelineTainted.has(command.pipeline)
    const problem = commandProblem(command, scan, upstream, tainted, named)
    if (problem) return problem
    if (command.stdinTainted || command.words.some((word) => word.tainted) || upstream) pipelineTainted.add(command.pipeline)
  }
  return undefined
}

/** Variables a command gives a tainted value. */
function assignedNames(scan: ShellScan): string[] {
  const names: string[] = []
  for (const command of scan.commands) {
    const words = command.words
    let index = 0
    for (; index < words.length; index++) {
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(words[index]!.text)
      if (!assignment) break
      if (words[index]!.tainted) names.push(assignment[1]!)
    }
    const program = words[index]?.text
    const rest = words.slice(index + 1)
    if (program !== undefined && declarations.has(program)) {
      for (const word of rest) {
        const assignment = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.text)
        if (assignment && word.tainted) names.push(assignment[1]!)
      }
    }
    // `read x <<< "$1"`, `printf -v x … "$1"`, `for x in "$@"`: the names take the text.
    if ((program === 'read' || program === 'mapfile' || program === 'readarray') && command.stdinTainted) {
      for (const word of rest) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(word.text)) names.push(word.text)
    }
    if ((program === 'for' || program === 'select') && rest.slice(1).some((word) => word.tainted)) names.push(rest[0]?.text ?? '')
    if (program === 'printf' && rest.some((word) => word.tainted)) {
      const v = rest.findIndex((word) => word.text === '-v')
      if (v !== -1 && rest[v + 1]) names.push(rest[v + 1]!.text)
    }
  }
  return names.filter((name) => name !== '')
}

function commandProblem(command: ShellCommand, scan: ShellScan, upstream: boolean, tainted: ReadonlySet<string>, named: readonly string[]): string | undefined {
  let index = 0
  while (index < command.words.length && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(command.words[index]!.text)) index++
  while (index < command.words.length && keywords.has(command.words[index]!.text)) index++
  const words = command.words.slice(index)
  const stdin = command.stdinTainted || upstream
  if (words.length === 0 || (!stdin && !words.some((word) => word.tainted))) return undefined
  const [program, ...args] = words as [ShellWord, ...ShellWord[]]
  const name = program.text
  // `for x in …` and `case … in` only bind or match their words.
  if (name === 'for' || name === 'select' || name === 'case') return undefined
  if (program.tainted) return `runs prompt text as a command (\`${name}\`); pass it as an argument: \`my-agent "$1"\``
  if (!program.literal) return `runs a command named by an expansion (\`${name}\`) with prompt text; write the program's name in the template`
  if (scan.functions.has(name)) return `passes prompt text to \`${name}\`, a function of the script, where mdplan cannot follow it; call the program directly`
  if (name === '[[') {
    for (let at = 0; at < args.length; at++) {
      if (!args[at]!.tainted) continue
      const around = [args[at - 1]?.text, args[at + 1]?.text]
      if (around.some((word) => word !== undefined && arithmeticOperators.has(word))) return `compares prompt text with \`${around.find((word) => word && arithmeticOperators.has(word))}\` in \`[[ … ]]\`, where bash evaluates it as arithmetic`
      if (around[0] === '-v' || around[0] === '-R') return `tests prompt text with \`${around[0]}\`, where bash evaluates it as a variable name`
    }
    return undefined
  }
  const unquoted = args.find((word) => word.unquotedTaint)
  if (unquoted) return `passes prompt text unquoted (\`${unquoted.text}\`), so it would be split into words and globbed; quote it: "${unquoted.text}"`
  if (declarations.has(name)) {
    if (args.some((word) => /^-[a-zA-Z]*[inaA]/.test(word.text))) return `declares a variable with \`${name} -i/-n/-a/-A\` from prompt text, which bash evaluates`
    const bad = args.find((word) => word.tainted && !/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.text))
    return bad ? `uses prompt text as a variable name in \`${name}\`, which bash evaluates` : undefined
  }
  if (dataBuiltins.has(name)) {
    if (name === 'printf' && args[0]?.text === '-v' && args[1]?.tainted) return 'uses prompt text as the variable name of `printf -v`, which bash evaluates'
    if ((name === 'test' || name === '[') && args.some((word, at) => word.tainted && (args[at - 1]?.text === '-v' || args[at - 1]?.text === '-R'))) {
      return `tests prompt text with \`-v\`, where bash evaluates it as a variable name`
    }
    return undefined
  }
  if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'getopts') {
    if (args.some((word) => word.text === '-C')) return `gives \`${name} -C\` a callback, which runs as code`
    const bad = args.find((word) => word.tainted)
    return bad ? `uses prompt text as a variable name of \`${name}\`, which bash evaluates` : undefined
  }
  const argv = words.map((word) => word.text)
  for (const position of codePositions(argv)) {
    if (position.index === 0) continue
    const word = words[position.index]!
    if (position.kind === 'script') {
      if (word.tainted) return `runs prompt text as code: \`${position.program}\` runs \`${word.text}\` as a script; pass it as an argument after the script ("$1")`
      const inner = scriptProblem(word.text, words.slice(position.index + 1).some((after) => after.tainted), tainted, named)
      if (inner) return `runs a script with \`${position.program}\` that ${inner}`
    } else if (word.tainted) {
      return position.kind === 'program'
        ? `runs prompt text as a command through \`${position.program}\` (\`${word.text}\`)`
        : `runs prompt text as code: \`${position.program}\` runs \`${word.text}\` as code`
    }
  }
  if (isShellBuiltinThatEvaluates(name) && args.some((word) => word.tainted)) return `passes prompt text to \`${name}\`, which evaluates it as code`
  if (stdin && stdinIsCode(argv)) return `feeds prompt text to \`${argv.join(' ')}\` on its stdin, which it runs as code`
  // What the lists above do not know runs nothing only if mdplan knows the program takes prompt text as data.
  return receiverProblem(words, stdin, {named, scriptsAreQuoted: false})
}

/** Builtins that run or evaluate their arguments (`eval`, `source`, `trap`…): `codePositions` knows the program-running ones. */
function isShellBuiltinThatEvaluates(name: string): boolean {
  return ['eval', 'source', '.', 'trap', 'alias', 'let', 'unset', 'bind', 'complete', 'compgen', 'fc', 'enable', 'hash', 'ulimit', 'coproc', 'caller', 'help', 'history', 'disown', 'fg', 'bg', 'suspend', 'logout', 'times', 'shopt'].includes(name)
}
