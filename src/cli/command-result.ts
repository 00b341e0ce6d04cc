import type {Command} from 'commander'
import type {Io} from './io.js'

/** A command module: adds its subcommand to `program`; its action reports an exit code through `done`. */
export type RegisterCommand = (program: Command, io: Io, done: (code: number) => void) => void
