import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerHistory: RegisterCommand = (program, io, done) => {
  program
    .command('history')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan history: not available yet\n')
      done(exitCodes.failed)
    })
}
