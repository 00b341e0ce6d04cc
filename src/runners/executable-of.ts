import type {Runner} from './runner.js'

/** The executable a runner will start: its env override (`MDPLAN_CLAUDE_BIN`…) when set, else its own. */
export function executableOf(runner: Runner, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = runner.executableEnv === undefined ? undefined : env[runner.executableEnv]
  return override !== undefined && override !== '' ? override : runner.executable
}
