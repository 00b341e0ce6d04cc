import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'

// Placeholder until this command lands; replaced by its owner.
export const registerAnswer: RegisterCommand = (program, io, done) => {
  program
    .command('answer')
    .description('(not available yet)')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      io.stderr('mdplan answer: not available yet\n')
      done(exitCodes.failed)
    })
}
