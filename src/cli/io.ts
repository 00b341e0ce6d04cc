/** Where commands print: injectable so tests can capture output without spawning. */
export interface Io {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Whether stdout is a terminal (live view) or a pipe (plain lines). */
  isTTY: boolean
  env: NodeJS.ProcessEnv
  cwd: string
}

export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
  cwd: process.cwd()
}
