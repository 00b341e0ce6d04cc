import type {CommandTable} from './run-cli.js'

/**
 * The commands that only read a plan (`graph --write` writes one block, never
 * the state table): bin/start.js runs them from a small bundle of their own
 * (src/cli/read-main.ts), without the executor, the hosts or execa.
 * bin/start.js keeps the same list of names.
 */
export const readCommands: CommandTable = {
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  status: async () => (await import('./commands/status.js')).registerStatus,
  graph: async () => (await import('./commands/graph.js')).registerGraph
}
