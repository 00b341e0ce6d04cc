import type {RegisterCommand} from '../command-result.js'
import {showStatus} from '../show-status.js'

// src/cli/quick-status.ts runs the plainest forms of this command without commander: what it
// accepts must mean here what it means there.
export const registerStatus: RegisterCommand = (program, io, done) => {
  program
    .command('status')
    .description('Show where a plan stands: counts, ready and blocked agents, the critical path (reads the file only)')
    .argument('<plan>', 'the plan file (Markdown)')
    .option('--json', 'print one JSON object (its fields: docs/running.md, "mdplan status")')
    .addHelpText('after', '\nExit codes: 0 shown; 2 the file is not a readable plan (see `mdplan validate`).\n')
    .action(async (file: string, flags: {json?: boolean}) => {
      done(await showStatus(file, flags, io))
    })
}
