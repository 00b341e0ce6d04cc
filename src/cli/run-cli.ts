import {Command, CommanderError} from 'commander'
import {exitCodes} from '../exit-codes.js'
import {processIo, type Io} from './io.js'
import type {RegisterCommand} from './command-result.js'
import {version} from '../version.js'

/** Each command's module by name, loaded only when that command runs. */
export type CommandTable = Record<string, () => Promise<RegisterCommand>>

/** The commands to load for `argv`: the one it names, none for a bare `--version`, else all (help lists them). */
function commandsFor(commands: CommandTable, argv: readonly string[]): string[] {
  const name = argv.find((arg) => !arg.startsWith('-'))
  if (name !== undefined && Object.hasOwn(commands, name)) return [name]
  if (name === undefined && argv.some((arg) => arg === '-v' || arg === '--version') && !argv.some((arg) => arg === '-h' || arg === '--help')) return []
  return Object.keys(commands)
}

/**
 * Run the CLI with `argv` (without `node` and the script) over `commands`
 * and resolve to the exit code. Both bundles (src/cli/main.ts, every command;
 * src/cli/read-main.ts, the read-only ones) run through here, so a command
 * behaves the same whichever bundle bin/start.js picked.
 */
export async function runCli(commands: CommandTable, argv: string[], io: Io = processIo): Promise<number> {
  let code: number = exitCodes.ok
  const program = new Command('mdplan')
    .description('Run a Markdown plan of parallel coding agents. The plan file is the database.')
    .version(version, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({writeOut: io.stdout, writeErr: io.stderr})
  for (const name of commandsFor(commands, argv)) {
    const register = await commands[name]!()
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
