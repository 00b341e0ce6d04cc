import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerReport: RegisterCommand = (program, io, done) => {
  program
    .command('report')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan report: not available yet\n')
      done(exitCodes.failed)
    })
}
