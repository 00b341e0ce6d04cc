import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerImport: RegisterCommand = (program, io, done) => {
  program
    .command('import')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan import: not available yet\n')
      done(exitCodes.failed)
    })
}
