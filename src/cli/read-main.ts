import type {Io} from './io.js'
import {readCommands} from './read-commands.js'
import {runCli} from './run-cli.js'

/** The entry of the small bundle (dist/mdplan-read.cjs): `main` over the read-only commands alone. */
export const main = (argv: string[], io?: Io): Promise<number> => runCli(readCommands, argv, io)
