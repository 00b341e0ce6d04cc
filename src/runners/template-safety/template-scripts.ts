import {codePositions} from './code-positions.js'

export interface TemplateScripts {
  /** argv indices that a POSIX shell runs as a script. */
  scripts: number[]
  /** argv indices run as code that cannot take a variable, or started as a program, with who runs them. */
  code: Array<{index: number; program: string}>
}

/**
 * Where, anywhere in a template's argv, a word is run as code: the script of a
 * shell's `-c` (after any wrapper, `timeout 60`, `env X=1`, `xargs`, and with
 * shell options before it, `bash -o pipefail -c`, `bash -lc`), the code of
 * another interpreter (`python3 -Ic`, `perl -ne`, `env -iS`), and a program a
 * wrapper starts. See `codePositions`: every word that names an interpreter
 * starts a scan, so a wrapper mdplan has never heard of is covered too.
 */
export function templateScripts(argv: readonly string[]): TemplateScripts {
  const scripts: number[] = []
  const code: TemplateScripts['code'] = []
  for (const position of codePositions(argv)) {
    if (position.kind === 'script') scripts.push(position.index)
    else if (position.index > 0) code.push({index: position.index, program: position.program})
  }
  return {scripts, code}
}
