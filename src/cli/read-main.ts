import {processIo, type Io} from './io.js'
import {quickStatus} from './quick-status.js'
import {readCommands} from './read-commands.js'

/**
 * The entry of the small bundle (dist/mdplan-read.cjs): `main` over the
 * read-only commands alone. commander is loaded only for what quickStatus
 * leaves to it (esbuild keeps a module behind `import()` unevaluated until then).
 */
export const main = async (argv: string[], io: Io = processIo): Promise<number> =>
  quickStatus(argv, io) ?? (await import('./run-cli.js')).runCli(readCommands, argv, io)
