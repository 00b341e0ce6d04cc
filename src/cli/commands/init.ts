import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerInit: RegisterCommand = (program, io, done) => {
  program
    .command('init')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan init: not available yet\n')
      done(exitCodes.failed)
    })
}
