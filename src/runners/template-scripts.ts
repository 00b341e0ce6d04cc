import {basename} from 'node:path'

/** Shells whose `-c` script quotes variables the POSIX way (`"$VAR"`). */
const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'bosh'])
/** Programs that run one of their arguments with `sh -c` and pass the environment on. */
const shellOptionRunners: Record<string, readonly string[]> = {flock: ['-c', '--command'], script: ['-c', '--command']}
/**
 * Programs that run an argument as code where mdplan cannot hand the text over
 * as a variable: another language, a remote or fresh-login shell, or a string
 * split into a new command line. A placeholder there is refused.
 */
const codeOptions: Record<string, readonly string[]> = {
  fish: ['-c', '--command'],
  python: ['-c'],
  node: ['-e', '--eval', '-p', '--print'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  pwsh: ['-c', '-Command', '-command'],
  su: ['-c', '--command'],
  runuser: ['-c', '--command'],
  env: ['-S', '--split-string']
}
/** Programs that join all their following arguments into one shell command line. */
const joiners = new Set(['ssh', 'watch', 'eval'])

export interface TemplateScripts {
  /** argv indices that a POSIX shell runs as a script. */
  scripts: number[]
  /** argv indices run as code that cannot take a variable, with the program that runs them. */
  code: Array<{index: number; program: string}>
}

/**
 * Where, anywhere in a template's argv, a word is run as code: the script of a
 * shell's `-c`, after any wrapper (`timeout 60`, `env X=1`, `nice -n 5`,
 * `stdbuf -oL`, `xargs`, `setsid`, `nohup`, `time`, `command`) and with shell
 * options before it (`bash -o pipefail -c`, `sh -e -c`, `bash -lc`). No wrapper is
 * named: every word that is a shell starts a scan, so a wrapper mdplan has never
 * heard of is covered too.
 */
export function templateScripts(argv: readonly string[]): TemplateScripts {
  const scripts: number[] = []
  const code: TemplateScripts['code'] = []
  for (let index = 0; index < argv.length; index++) {
    // `python3.12`, `bash5`: the version does not change how the program reads code.
    const program = basename(argv[index]!).replace(/[\d.]+$/, '')
    if (scripts.includes(index)) continue
    if (shells.has(program)) {
      const script = shellScriptAfter(argv, index)
      if (script !== -1) scripts.push(script)
    } else if (program in shellOptionRunners) {
      for (const found of optionValues(argv, index, shellOptionRunners[program]!)) scripts.push(found)
    } else if (program in codeOptions) {
      for (const found of optionValues(argv, index, codeOptions[program]!)) code.push({index: found, program})
    } else if (joiners.has(program)) {
      for (let rest = index + 1; rest < argv.length; rest++) code.push({index: rest, program})
      break
    }
  }
  return {scripts, code}
}

/** The index of the `-c` script of the shell at `shell`, or -1 when it runs a file or stdin. */
function shellScriptAfter(argv: readonly string[], shell: number): number {
  let hasC = false
  for (let index = shell + 1; index < argv.length; index++) {
    const word = argv[index]!
    if (word === '--' || word === '-') {
      return hasC && index + 1 < argv.length ? index + 1 : -1
    }
    if (word.startsWith('--')) {
      if (word === '--rcfile' || word === '--init-file') index++
      continue
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word[0] === '-' && word.includes('c')) hasC = true
      // `-o pipefail`, `-eo pipefail`, `-O extglob`: each o/O takes the next word.
      index += (word.match(/[oO]/g) ?? []).length
      continue
    }
    return hasC ? index : -1
  }
  return -1
}

/** Indices of the values of `options` (`-c x`, `-cx`, `--command=x`) after the program at `program`. */
function optionValues(argv: readonly string[], program: number, options: readonly string[]): number[] {
  const found: number[] = []
  for (let index = program + 1; index < argv.length; index++) {
    const word = argv[index]!
    const option = options.find((name) => word === name || (word.startsWith(name) && (word[name.length] === '=' || !name.startsWith('--'))))
    if (option === undefined) continue
    found.push(word === option ? index + 1 : index)
    if (word === option) index++
  }
  return found.filter((index) => index < argv.length)
}
