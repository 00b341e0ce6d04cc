import {basename, posix} from 'node:path'

/**
 * What mdplan knows takes prompt text as data. The template rule is built on
 * this list, not on a list of what runs code: a list of code runners is never
 * complete (ssh, sg, tmux, git -c, make --eval, gdb -ex, vim -c…), so a
 * placeholder may reach only a program named here (or one the plan names in
 * `template_data_programs`), and only where that program takes it as data.
 */

/**
 * Programs none of whose arguments or options run code, and that read stdin
 * (if at all) as data: a placeholder may be any whole argument.
 */
export const dataUtilities: ReadonlySet<string> = new Set(['printf', 'echo', 'true', 'false', 'cat', 'head', 'tail', 'wc', 'basename', 'dirname', 'test', '['])

/**
 * Programs that read stdin as data when their own arguments are written in
 * the template (`my-agent {prompt} | tee out.log`); prompt text in their
 * arguments is refused (`tee` would write a file it names, `grep -f`…).
 * `sed` only with `s/…/…/` scripts: its `e` command and `e` flag run the
 * pattern space as a command.
 */
export const stdinFilters: ReadonlySet<string> = new Set(['tee', 'tr', 'sort', 'uniq', 'cut', 'grep', 'fold', 'base64', 'nl', 'rev', 'sed'])

/**
 * The agent CLIs mdplan drives itself. Their options can run code (claude's
 * `--settings` hooks and `--mcp-config` servers, codex's `-c` config), so
 * prompt text is data only where no option parser reads it: an operand after
 * `--`, or the inline value of an option that takes text (`--flag={x}`,
 * whatever the text begins with). A bare `claude -p {prompt}` is refused:
 * a prompt that begins with `--settings=` would be an option.
 */
export const agentClis: Readonly<Record<string, readonly string[]>> = {
  claude: ['--append-system-prompt', '--system-prompt', '--session-id', '--resume', '--model'],
  codex: ['--model'],
  gemini: ['--prompt', '--prompt-interactive', '--session-id', '--resume', '--model'],
  opencode: ['--session', '--title', '--model', '--prompt']
}

/** Whether `word` is a program the plan names in `template_data_programs` (exactly, or the same relative path: `./bin/x` is `bin/x`). */
export function isNamedDataProgram(word: string, named: readonly string[]): boolean {
  return named.some((name) => name !== '' && (name === word || (name.includes('/') && word.includes('/') && posix.normalize(name) === posix.normalize(word))))
}

/**
 * The name a program of these lists is known by: a bare name (found on
 * `PATH`), or the last part of an absolute path (`/usr/bin/printf` is
 * `printf`). A relative path (`./printf`, `bin/claude`) is a file of the
 * plan's own, whatever its name: undefined, so it must be named.
 */
export function knownProgramName(word: string): string | undefined {
  if (!word.includes('/')) return word
  return word.startsWith('/') ? basename(word) : undefined
}

/** Whether every script of a `sed` command is a plain substitution without the `e` or `w` flag (`s/a/b/g`, `$s/\.$//`). */
export function plainSed(args: readonly string[]): boolean {
  const scripts: string[] = []
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!
    if (word === '-e' || word === '--expression') scripts.push(args[++index] ?? '')
    else if (/^--expression=/.test(word)) scripts.push(word.slice(word.indexOf('=') + 1))
    else if (/^-[nEr]+$/.test(word) || word === '--') continue
    else if (word.startsWith('-')) return false
    else if (scripts.length === 0) scripts.push(word)
  }
  return scripts.length > 0 && scripts.every((script) => substitution.test(script))
}

/** One `s` command, optionally addressed by a line number or `$`, with flags only from `g`, `p`, `i`, `I` and a count. */
const substitution = /^(?:\d+|\$)?s([^\\\n\w\s])(?:\\.|(?!\1)[^\\\n])*\1(?:\\.|(?!\1)[^\\\n])*\1[gpiI0-9]*$/
