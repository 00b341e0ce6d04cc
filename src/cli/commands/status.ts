import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerStatus: RegisterCommand = (program, io, done) => {
  program
    .command('status')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan status: not available yet\n')
      done(exitCodes.failed)
    })
}
