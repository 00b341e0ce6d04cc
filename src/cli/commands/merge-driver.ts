import {writeFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import {NotRegularFileError, readRegularFile} from '../../util/read-regular-file.js'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {mergePlans} from '../../merge/merge-plans.js'
import {plural} from '../../util/plural.js'
import {findConflictMarkers} from '../../plan/find-conflict-markers.js'

/** `FILE:LINE:1: conflict markers …` for the first marker region in one input, if any. */
function markerProblem(text: string, file: string, side: string): string[] {
  const region = findConflictMarkers(text)[0]
  if (!region) return []
  const line = text.slice(0, region.start).split('\n').length
  return [`${file}:${line}:1: conflict markers (\`${region.marker.slice(0, 7)}\`) in ${side}, from an earlier merge: not merged, %A left as it was [conflict-markers]`]
}

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
        // Regular files only: a FIFO given by hand would block the read forever.
        sources = await Promise.all([base, ours, theirs].map(async (file) => (await readRegularFile(resolve(io.cwd, file))).toString('utf8')))
      } catch (error) {
        const where = error instanceof NotRegularFileError ? error.message.replace(/ is .*$/, '') : (error as NodeJS.ErrnoException).path
        io.stderr(`mdplan merge-driver: ${name}: cannot read ${where ?? 'an input'} (${error instanceof NotRegularFileError ? `${error.kind}, not a regular file` : ((error as NodeJS.ErrnoException).code ?? String(error))})\n`)
        return done(exitCodes.invalid)
      }
      // A version that already holds a merge's markers (a conflicted plan committed as it was) cannot be
      // merged row by row: either side's rows between the markers would be dropped or doubled. Exit 2 leaves
      // %A as it was, and the wrapper \`init --git\` configures falls back to git merge-file.
      const marked = sources.flatMap((text, index) => markerProblem(text, name, ['base (%O)', 'ours (%A)', 'theirs (%B)'][index]!))
      if (marked.length > 0) {
        for (const problem of marked) io.stderr(`mdplan merge-driver: ${problem}\n`)
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
