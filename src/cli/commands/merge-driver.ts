import {readFile, writeFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'
import {mergePlans} from '../../merge/merge-plans.js'
import {plural} from '../../util/plural.js'

export const registerMergeDriver: RegisterCommand = (program, io, done) => {
  program
    .command('merge-driver')
    .description('Merge three versions of a plan as a git merge driver: the state table row by row, the rest as text')
    .argument('<base>', 'the common ancestor (git: %O)')
    .argument('<ours>', 'our version; the result is written here (git: %A)')
    .argument('<theirs>', 'their version (git: %B)')
    .argument('[path]', 'the plan’s path in the repository, for messages (git: %P)')
    .addHelpText(
      'after',
      '\nSet up by `mdplan init --git`, or by hand:\n' +
        '  .gitattributes:  plans/*.md merge=mdplan\n' +
        '  git config merge.mdplan.driver "mdplan merge-driver %O %A %B %P"\n' +
        '(init --git wraps it so that git merge-file writes markers when mdplan cannot start).\n' +
        'Exit codes: 0 merged cleanly; 1 conflicts left with markers (rows name their agent); 2 unreadable input or no merge (ours untouched).\n'
    )
    .action(async (base: string, ours: string, theirs: string, path: string | undefined) => {
      const name = path ?? ours
      let sources: string[]
      try {
        sources = await Promise.all([base, ours, theirs].map((file) => readFile(resolve(io.cwd, file), 'utf8')))
      } catch (error) {
        io.stderr(`mdplan merge-driver: ${name}: cannot read ${(error as NodeJS.ErrnoException).path ?? 'an input'} (${(error as NodeJS.ErrnoException).code ?? String(error)})\n`)
        return done(exitCodes.invalid)
      }
      let merged
      try {
        merged = await mergePlans(sources[0]!, sources[1]!, sources[2]!, name)
      } catch (error) {
        // Not 1: that is "conflicts written", and %A still holds ours alone. The wrapper
        // `mdplan init --git` configures falls back to git merge-file on any other code.
        io.stderr(`mdplan merge-driver: ${name}: could not merge (${error instanceof Error ? error.message : String(error)}); %A left as it was\n`)
        return done(exitCodes.invalid)
      }
      await writeFile(resolve(io.cwd, ours), merged.text)
      for (const {agent, reason} of merged.rowConflicts) io.stderr(`mdplan merge-driver: ${name}: conflict in the Execution State row of agent ${agent}: ${reason}\n`)
      for (const agent of merged.questionConflicts) io.stderr(`mdplan merge-driver: ${name}: conflict in the open question of agent ${agent}\n`)
      if (merged.textConflicts > 0) io.stderr(`mdplan merge-driver: ${name}: ${plural(merged.textConflicts, 'conflict')} outside the state table\n`)
      done(merged.clean ? exitCodes.ok : exitCodes.failed)
    })
}
