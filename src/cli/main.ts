import {Command, CommanderError} from 'commander'
import {exitCodes} from './exit-codes.js'
import {processIo, type Io} from './io.js'
import type {RegisterCommand} from './command-result.js'
import {version} from '../version.js'

// Each command's module is loaded only when that command runs: `mdplan --version`
// should not pay for the Markdown parser, and `mdplan run` not for the importer.
const commands: Record<string, () => Promise<RegisterCommand>> = {
  run: async () => (await import('./commands/run.js')).registerRun,
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  status: async () => (await import('./commands/status.js')).registerStatus,
  answer: async () => (await import('./commands/answer.js')).registerAnswer,
  graph: async () => (await import('./commands/graph.js')).registerGraph,
  report: async () => (await import('./commands/report.js')).registerReport,
  init: async () => (await import('./commands/init.js')).registerInit,
  import: async () => (await import('./commands/import.js')).registerImport,
  history: async () => (await import('./commands/history.js')).registerHistory,
  'merge-driver': async () => (await import('./commands/merge-driver.js')).registerMergeDriver,
  diff: async () => (await import('./commands/diff.js')).registerDiff,
  resolve: async () => (await import('./commands/resolve.js')).registerResolve
}

/** The commands to load for `argv`: the one it names, none for a bare `--version`, else all (help lists them). */
function commandsFor(argv: readonly string[]): string[] {
  const name = argv.find((arg) => !arg.startsWith('-'))
  if (name !== undefined && Object.hasOwn(commands, name)) return [name]
  if (name === undefined && argv.some((arg) => arg === '-v' || arg === '--version') && !argv.some((arg) => arg === '-h' || arg === '--help')) return []
  return Object.keys(commands)
}

/** Run the CLI with `argv` (without `node` and the script) and resolve to the exit code. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code: number = exitCodes.ok
  const program = new Command('mdplan')
    .description('Run a Markdown plan of parallel coding agents. The plan file is the database.')
    .version(version, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({writeOut: io.stdout, writeErr: io.stderr})
  for (const name of commandsFor(argv)) {
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
