import {basename} from 'node:path'

/** A word of an argv that something runs as code, or starts as a program, with who does it. */
export interface CodePosition {
  index: number
  program: string
  /** `script`: a POSIX shell's `-c` script (mdplan can quote placeholders in it); `code`: code of another kind; `program`: the program itself. */
  kind: 'script' | 'code' | 'program'
}

interface Reader {
  /** Options whose value is code (`-c`, `-e`); in a cluster (`-Ic`, `-ne`) the rest of the word, else the next word. */
  code?: string
  /** Long options whose value is code. */
  longCode?: readonly string[]
  /** Options (short letters or long names) that take a value that is not code. */
  valued?: string
  longValued?: readonly string[]
  /** The first operand is a script file or program text unless a code option was given (`python file.py`, `awk 'prog'`). */
  firstOperandIsCode?: boolean
  /** The first operand is the program it runs, after `operands` operands of its own (`timeout 60 cmd`, `env X=1 cmd`). */
  runsProgram?: boolean
  operands?: number
  /** Every word after it is code (`eval`, `ssh host cmd…`, `watch`). */
  allCode?: boolean
  /** Its code option's value runs as `sh -c` with the environment passed on (`flock -c`, `script -c`). */
  codeIsShell?: boolean
}

const shell: Reader = {code: 'c', valued: 'oO', longValued: ['--rcfile', '--init-file'], firstOperandIsCode: true}
const wrapper = (valued = '', operands = 0, longValued: readonly string[] = []): Reader => ({runsProgram: true, valued, operands, longValued})

/**
 * Programs that read code from their command line (or run another program
 * named there), and how. Not what makes a template safe (that is the list of
 * what takes data, `receiverProblem`): this table finds the scripts mdplan
 * quotes, follows the wrappers, and names the known ways to run code in a
 * refusal. The names are matched without a directory and a
 * version suffix (`/usr/bin/python3.12` is `python`).
 */
const readers: Record<string, Reader> = {
  sh: shell,
  bash: shell,
  zsh: shell,
  dash: shell,
  ksh: shell,
  mksh: shell,
  ash: shell,
  yash: shell,
  posh: shell,
  bosh: shell,
  fish: {code: 'cC', longCode: ['--command', '--init-command'], firstOperandIsCode: true},
  python: {code: 'cm', valued: 'WX', firstOperandIsCode: true},
  pypy: {code: 'cm', valued: 'WX', firstOperandIsCode: true},
  node: {code: 'epr', longCode: ['--eval', '--print', '--require', '--import', '--loader', '--experimental-loader'], firstOperandIsCode: true},
  nodejs: {code: 'epr', longCode: ['--eval', '--print', '--require', '--import', '--loader'], firstOperandIsCode: true},
  bun: {code: 'e', longCode: ['--eval', '--print'], firstOperandIsCode: true},
  deno: {code: 'e', longCode: ['--eval'], firstOperandIsCode: true},
  perl: {code: 'eEMm', valued: 'I', firstOperandIsCode: true},
  ruby: {code: 'er', valued: 'I', firstOperandIsCode: true},
  php: {code: 'rfB', firstOperandIsCode: true},
  lua: {code: 'el', firstOperandIsCode: true},
  luajit: {code: 'el', firstOperandIsCode: true},
  tclsh: {firstOperandIsCode: true},
  wish: {firstOperandIsCode: true},
  Rscript: {code: 'e', firstOperandIsCode: true},
  pwsh: {code: 'cC', longCode: ['-Command', '-command', '-File', '-file'], firstOperandIsCode: true},
  osascript: {code: 'e', firstOperandIsCode: true},
  awk: {code: 'f', valued: 'vF', firstOperandIsCode: true},
  gawk: {code: 'fe', valued: 'vF', longCode: ['--source', '--file'], firstOperandIsCode: true},
  mawk: {code: 'f', valued: 'vF', firstOperandIsCode: true},
  nawk: {code: 'f', valued: 'vF', firstOperandIsCode: true},
  sed: {code: 'ef', longCode: ['--expression', '--file'], firstOperandIsCode: true},
  gsed: {code: 'ef', longCode: ['--expression', '--file'], firstOperandIsCode: true},
  su: {code: 'c', longCode: ['--command'], valued: 'gGs', longValued: ['--group', '--shell']},
  runuser: {code: 'c', longCode: ['--command'], valued: 'gGsu', longValued: ['--group', '--shell', '--user']},
  flock: {...wrapper('wE', 1, ['--timeout', '--conflict-exit-code']), code: 'c', longCode: ['--command'], codeIsShell: true},
  script: {code: 'c', longCode: ['--command'], valued: 'TIOB', longValued: ['--log-timing', '--log-in', '--log-out', '--log-io'], codeIsShell: true},
  env: {...wrapper('uC', 0, ['--unset', '--chdir']), code: 'S', longCode: ['--split-string']},
  xargs: wrapper('aEeIiLlnPsd', 0, ['--arg-file', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--delimiter']),
  sudo: wrapper('ugCDhprtUTR', 0, ['--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--other-user', '--command-timeout', '--chroot']),
  doas: wrapper('uC'),
  timeout: wrapper('sk', 1, ['--signal', '--kill-after']),
  nice: wrapper('n', 0, ['--adjustment']),
  ionice: wrapper('cnpPu', 0, ['--class', '--classdata', '--pid', '--pgid', '--uid']),
  chrt: wrapper('T', 1),
  taskset: wrapper('', 1),
  stdbuf: wrapper('ioe', 0, ['--input', '--output', '--error']),
  setsid: wrapper(),
  nohup: wrapper(),
  time: wrapper('fo', 0, ['--format', '--output']),
  command: wrapper(),
  builtin: wrapper(),
  exec: wrapper('a'),
  unbuffer: wrapper(),
  chroot: wrapper('', 1, ['--userspec', '--groups']),
  busybox: wrapper(),
  strace: wrapper('eoOpPsSuUXabEIF'),
  eval: {allCode: true},
  ssh: {allCode: true},
  watch: {allCode: true},
  parallel: {allCode: true},
  source: {firstOperandIsCode: true},
  '.': {firstOperandIsCode: true}
}

/** `python3.12` → `python`, `/usr/bin/bash5` → `bash`. */
export function programName(word: string): string {
  const name = basename(word)
  return name in readers ? name : name.replace(/[\d.]+$/, '')
}

/** Whether a program reads code from its command line or runs another program (a shell, an interpreter, `env`, `xargs`, `eval`…). */
export function isInterpreter(word: string): boolean {
  return Object.hasOwn(readers, programName(word))
}

/**
 * Every word of `argv` that is run as code or started as a program: argv[0];
 * for each word that names a program of the table, wherever it stands (so a
 * wrapper mdplan never heard of is covered too), the words it runs: the
 * value of a code option, grouped flags included (`python3 -Ic X`,
 * `env -iS X`, `perl -ne X`, `bash -lc X`), a script operand
 * (`python3 X`, `awk X`), and the program a wrapper starts (`timeout 60 X`,
 * `xargs X`, `env A=1 X`). A POSIX shell's `-c` script is `script`: its
 * placeholders can be quoted variables. Pure.
 */
export function codePositions(argv: readonly string[]): CodePosition[] {
  const found: CodePosition[] = []
  if (argv.length > 0) found.push({index: 0, program: '', kind: 'program'})
  for (let index = 0; index < argv.length; index++) {
    const program = programName(argv[index]!)
    const reader = Object.hasOwn(readers, program) ? readers[program]! : undefined
    if (!reader) continue
    if (reader.allCode) {
      for (let rest = index + 1; rest < argv.length; rest++) found.push({index: rest, program, kind: 'code'})
      break
    }
    const read = readArgs(argv, index, program, reader)
    found.push(...read)
    // A wrapper's program is read in turn; the words after an interpreter's code are its arguments: data.
    const started = read.find((position) => position.kind === 'program')
    if (started === undefined) break
    index = started.index - 1
  }
  return found
}

/**
 * Whether the program `argv` starts reads code from its stdin: a shell or an
 * interpreter given no script (or `-`, `/dev/stdin`), `source /dev/stdin`,
 * `xargs` (stdin becomes its command's arguments), through any wrapper.
 */
export function stdinIsCode(argv: readonly string[]): boolean {
  const positions = codePositions(argv)
  let last = 0
  for (const position of positions) if (position.kind === 'program') last = position.index
  const program = programName(argv[last] ?? '')
  const reader = Object.hasOwn(readers, program) ? readers[program]! : undefined
  if (!reader || reader.allCode) return false
  if (program === 'xargs') return true
  if (reader.runsProgram) return false
  const operands = argv.slice(last + 1)
  if (operands.some((word) => /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(word))) return true
  if (['awk', 'gawk', 'mawk', 'nawk', 'sed', 'gsed', 'su', 'runuser', 'flock', 'script'].includes(program)) return false
  return !positions.some((position) => position.index > last && (position.kind === 'code' || position.kind === 'script'))
}

function readArgs(argv: readonly string[], at: number, program: string, reader: Reader): CodePosition[] {
  const found: CodePosition[] = []
  const posix = reader === shell
  const codeKind = reader.codeIsShell ? 'script' : 'code'
  let sawCode = false
  let operands = 0
  for (let index = at + 1; index < argv.length; index++) {
    const word = argv[index]!
    if (word === '--' || (word === '-' && !posix)) {
      // After `--` the next word is an operand; `-` is stdin for an interpreter.
      if (word === '-') return found
      continue
    }
    if (word.startsWith('--') && word.length > 2) {
      const [name, inline] = word.includes('=') ? [word.slice(0, word.indexOf('=')), true] : [word, false]
      if (reader.longCode?.includes(name)) {
        sawCode = true
        if (inline) found.push({index, program, kind: 'code'})
        else if (index + 1 < argv.length) found.push({index: ++index, program, kind: codeKind})
      } else if (reader.longValued?.includes(name) && !inline) {
        if (posix) found.push({index: index + 1, program, kind: 'code'})
        index++
      }
      continue
    }
    if (/^[-+][A-Za-z0-9]/.test(word) && !(reader.runsProgram && /^-\d/.test(word) && operands > 0)) {
      // A cluster: each letter an option; a code or valued option takes the rest of the word, else the next word.
      // `sh -s`: the script is stdin, every operand a positional parameter.
      if (posix && word[0] === '-' && word.includes('s') && !word.includes('c')) return found
      for (let letter = 1; letter < word.length; letter++) {
        const char = word[letter]!
        const isCode = reader.code?.includes(char) && word[0] === '-'
        const isValued = reader.valued?.includes(char)
        if (!isCode && !isValued) continue
        // `node -pe X`: the letters after a code option are options too when each is one (the code is the next word).
        const rest = word.slice(letter + 1)
        const attached = rest !== '' && !(isCode && [...rest].every((other) => reader.code!.includes(other)))
        if (isCode) {
          sawCode = true
          if (posix) {
            // `-c` makes the first operand the script; other letters of the cluster are flags.
            continue
          }
          if (attached) found.push({index, program, kind: 'code'})
          else if (index + 1 < argv.length) found.push({index: ++index, program, kind: codeKind})
        } else if (!attached) {
          index++
        }
        break
      }
      continue
    }
    if (reader.runsProgram) {
      if (program === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue
      if (operands < (reader.operands ?? 0)) {
        operands++
        continue
      }
      found.push({index, program, kind: 'program'})
      return found
    }
    if (reader.firstOperandIsCode) {
      if (posix) found.push({index, program, kind: sawCode ? 'script' : 'code'})
      else if (!sawCode) found.push({index, program, kind: 'code'})
      return found
    }
    if (posix) return found
  }
  return found
}
