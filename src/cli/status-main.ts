import {processIo, type Io} from './io.js'
import {quickStatus} from './quick-status.js'

/**
 * The entry of the smallest bundle (dist/mdplan-status.cjs), which bin/start.js runs for
 * `status`: people and scripts poll it, and a small plan's `status` is mostly loading. Its code
 * cache holds what `status` runs and nothing of `validate` or `graph`. Arguments quickStatus
 * does not take go to commander with the `status` command alone, which is all src/cli/run-cli.ts
 * would register for them.
 */
export const main = async (argv: string[], io: Io = processIo): Promise<number> =>
  quickStatus(argv, io) ?? (await import('./run-cli.js')).runCli({status: async () => (await import('./commands/status.js')).registerStatus}, argv, io)
