import {Command, CommanderError} from 'commander'
import {exitCodes} from './exit-codes.js'
import {processIo, type Io} from './io.js'
import type {RegisterCommand} from './command-result.js'
import {registerValidate} from './commands/validate.js'
import {registerStatus} from './commands/status.js'
import {registerRun} from './commands/run.js'
import {registerAnswer} from './commands/answer.js'
import {registerInit} from './commands/init.js'
import {registerGraph} from './commands/graph.js'
import {registerReport} from './commands/report.js'
import {registerImport} from './commands/import.js'
import {registerHistory} from './commands/history.js'
import {version} from '../version.js'

const commands: RegisterCommand[] = [
  registerRun,
  registerValidate,
  registerStatus,
  registerAnswer,
  registerGraph,
  registerReport,
  registerInit,
  registerImport,
  registerHistory
]

/** Run the CLI with `argv` (without `node` and the script) and resolve to the exit code. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code: number = exitCodes.ok
  const program = new Command('mdplan')
    .description('Run a Markdown plan of parallel coding agents. The plan file is the database.')
    .version(version, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({writeOut: io.stdout, writeErr: io.stderr})
  for (const register of commands) {
    register(program, io, (result) => {
      code = result
    })
  }

  try {
    await program.parseAsync(argv, {from: 'user'})
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; usage mistakes are invalid arguments.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.invalid
    }
    io.stderr(`mdplan: ${error instanceof Error ? error.message : String(error)}\n`)
    return exitCodes.failed
  }
  return code
}
