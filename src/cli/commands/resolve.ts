import {existsSync, mkdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {mergePlans} from '../../merge/merge-plans.js'
import {leftoverConflicts} from '../../merge/leftover-conflicts.js'
import {readIndexStages} from '../../merge/read-index-stages.js'
import {parsePlan} from '../../plan/parse-plan.js'
import {atomicWrite} from '../../store/atomic-write.js'
import {readRows} from '../../store/table-state.js'
import {shellWord} from '../../util/shell-word.js'

export const registerResolve: RegisterCommand = (program, io, done) => {
  program
    .command('resolve')
    .description('In a conflicted merge, re-merge a plan from git’s index with the merge driver’s rules, leaving only the rows a person must decide')
    .argument('<plan>', 'the plan file git left conflicted')
    .addHelpText(
      'after',
      '\nFor a merge made without the mdplan merge driver (or one that could not run): the three versions git keeps\n' +
        'in its index (base, ours, theirs) are merged again, the Execution State row by row. Each row it cannot\n' +
        'reconcile (completed on one side, re-queued on the other) is left between markers that name the agent.\n' +
        'The file as it was before is kept under .git/mdplan/before-resolve/.\n' +
        'Exit codes: 0 nothing left for you (review, then git add); 1 conflicts left, each named; 2 not in a conflicted merge.\n'
    )
    .action(async (planPath: string) => {
      const file = resolve(io.cwd, planPath)
      if (!existsSync(dirname(file))) {
        io.stderr(`mdplan resolve: ${planPath}: no such folder\n`)
        return done(exitCodes.invalid)
      }
      const read = await readIndexStages(file)
      if (!read.ok) {
        io.stderr(`mdplan resolve: ${planPath}: ${read.notConflicted ? 'not in a conflicted merge: ' : ''}${read.reason}\n`)
        return done(exitCodes.invalid)
      }
      const {base, ours, theirs, path, gitDir} = read.stages
      if (ours === undefined || theirs === undefined) {
        io.stderr(`mdplan resolve: ${planPath}: deleted on ${ours === undefined ? 'our' : 'their'} side: keep it (\`git add ${shellWord(planPath)}\`) or delete it (\`git rm ${shellWord(planPath)}\`)\n`)
        return done(exitCodes.invalid)
      }
      const merged = await mergePlans(base ?? '', ours, theirs, planPath)
      const data = Buffer.from(merged.text, 'utf8')
      // What the person (or git) left in the file is kept where git keeps its own state: nothing is lost.
      const before = existsSync(file) ? readFileSync(file) : undefined
      if (before && !before.equals(data)) {
        const backup = join(gitDir, 'mdplan', 'before-resolve', path)
        mkdirSync(dirname(backup), {recursive: true})
        atomicWrite(backup, before)
        io.stdout(`${planPath}: the file as it was is kept in ${backup}\n`)
      }
      if (!before || !before.equals(data)) atomicWrite(file, data, before ? {mode: statSync(file).mode & 0o7777} : {})

      const left = leftoverConflicts(merged.text)
      for (const conflict of left) {
        const where = `${planPath}:${conflict.line}:1`
        if (conflict.kind === 'row') io.stdout(`${where}: agent ${conflict.agent}: ${conflict.reason}: both rows are left between markers; keep one and delete the marker lines\n`)
        else if (conflict.kind === 'question') io.stdout(`${where}: the open question of agent ${conflict.agent} changed on both sides: both are left between markers; keep one\n`)
        else io.stdout(`${where}: a text conflict outside the plan’s own sections, left with git’s markers: keep the lines you want\n`)
      }
      const rows = readRows(parsePlan(merged.text, planPath))
      const counts = new Map<string, number>()
      for (const row of rows.values()) counts.set(row.status, (counts.get(row.status) ?? 0) + 1)
      const tally = [...counts].map(([status, n]) => `${n} ${status}`).join(', ')
      if (left.length === 0) {
        io.stdout(`${planPath}: merged from git’s index${tally ? ` (${tally})` : ''}; nothing is left for you: review it, then \`git add ${shellWord(planPath)}\`\n`)
        return done(exitCodes.ok)
      }
      io.stdout(`${planPath}: merged from git’s index; ${left.length} conflict${left.length === 1 ? '' : 's'} left for you (above): fix ${left.length === 1 ? 'it' : 'them'}, then \`mdplan validate ${shellWord(planPath)}\` and \`git add ${shellWord(planPath)}\`\n`)
      done(exitCodes.failed)
    })
}
