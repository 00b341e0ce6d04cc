// What `scanShell` reads from a script: its simple commands and where prompt text goes.

/** One word of a simple command, with what the prompt can reach in it. */
export interface ShellWord {
  /** The word with quotes removed and expansions left as written (enough to name a program or an option). */
  text: string
  /** Prompt text can reach it: a placeholder, a tainted variable, a substitution whose output is tainted. */
  tainted: boolean
  /** A tainted `$var` outside double quotes: the prompt would be split into words and globbed. */
  unquotedTaint: boolean
  /** Written without any expansion or substitution. */
  literal: boolean
}

/** A simple command of a script, in source order (those inside `$(…)` and `<(…)` too). */
export interface ShellCommand {
  words: ShellWord[]
  /** Its stdin carries prompt text: a heredoc, a here-string or a `<` file that is tainted. */
  stdinTainted: boolean
  /** Commands joined by `|` share a pipeline number. */
  pipeline: number
}

export interface ShellScan {
  commands: ShellCommand[]
  /** Places where prompt text would be evaluated as an expression (arithmetic, an indirect name, a subscript). */
  problems: string[]
  /** Names of functions the script defines. */
  functions: Set<string>
}
