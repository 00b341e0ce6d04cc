import {processIo, type Io} from './io.js'
import {quickStatus} from './quick-status.js'
import {readCommands} from './read-commands.js'
import {runCli, type CommandTable} from './run-cli.js'

// Each command's module is loaded only when that command runs: `mdplan --version`
// should not pay for the Markdown parser, and `mdplan run` not for the importer.
const commands: CommandTable = {
  run: async () => (await import('./commands/run.js')).registerRun,
  validate: readCommands.validate!,
  status: readCommands.status!,
  answer: async () => (await import('./commands/answer.js')).registerAnswer,
  review: async () => (await import('./commands/review.js')).registerReview,
  graph: readCommands.graph!,
  report: async () => (await import('./commands/report.js')).registerReport,
  init: async () => (await import('./commands/init.js')).registerInit,
  import: async () => (await import('./commands/import.js')).registerImport,
  history: async () => (await import('./commands/history.js')).registerHistory,
  'merge-driver': async () => (await import('./commands/merge-driver.js')).registerMergeDriver,
  diff: async () => (await import('./commands/diff.js')).registerDiff,
  resolve: async () => (await import('./commands/resolve.js')).registerResolve,
  clean: async () => (await import('./commands/clean.js')).registerClean,
  serve: async () => (await import('./commands/serve.js')).registerServe
}

/** Run the CLI with `argv` (without `node` and the script) and resolve to the exit code. */
export const main = (argv: string[], io: Io = processIo): Promise<number> => quickStatus(argv, io) ?? runCli(commands, argv, io)
