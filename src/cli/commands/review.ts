import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {applyReview} from '../../store/apply-review.js'
import type {ReviewDecision} from '../../store/review-row.js'
import type {RowEditOutcome} from '../../store/edit-row.js'
import {liveRunOf} from '../../store/live-run-of.js'
import {shellWord} from '../../util/shell-word.js'

/**
 * `mdplan review PLAN AGENT --approve` / `--reject "why"`: the same as the hand edit of the agent's row
 * (docs/review.md), made through the store. No run lock: a running `mdplan run` treats the write like any
 * hand edit and acts on it (approval merges the work and starts the dependants; rejection runs the agent
 * again with the note); otherwise the next run does.
 */
export const registerReview: RegisterCommand = (program, io, done) => {
  program
    .command('review')
    .description("Approve or send back an agent's work that awaits review (its `review: true` gate)")
    .argument('<plan>', 'the plan file (Markdown)')
    .argument('<agent>', 'the ID of the agent whose work awaits review')
    .option('--approve', 'approve: its work is merged and its dependants start')
    .option('--reject <note>', 'send it back: the agent runs again, given the note')
    .addHelpText('after', '\nExit codes: 0 written; 2 no such plan or agent, the agent does not await review, or not exactly one of --approve and --reject.\n')
    .action(async (planArg: string, agent: string, flags: {approve?: boolean; reject?: string}) => {
      if ((flags.approve === true) === (flags.reject !== undefined)) {
        io.stderr('mdplan review: give exactly one of --approve and --reject "why"\n')
        return done(exitCodes.invalid)
      }
      const decision: ReviewDecision = flags.reject === undefined ? {kind: 'approve'} : {kind: 'reject', note: flags.reject}
      const file = resolve(io.cwd, planArg)
      let outcome: RowEditOutcome
      try {
        outcome = await applyReview(file, agent, decision)
      } catch (error) {
        io.stderr(`mdplan review: cannot write ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
        return done(exitCodes.invalid)
      }
      if (outcome.kind === 'unknown-agent') {
        io.stderr(`mdplan review: ${planArg} has no agent ${agent}\n`)
        return done(exitCodes.invalid)
      }
      if (outcome.kind === 'not-applicable') {
        io.stderr(`mdplan review: ${agent} does not await review in ${planArg} (its status is ${outcome.status})\n`)
        return done(exitCodes.invalid)
      }
      const live = liveRunOf(file)
      const who = live === undefined ? `The next \`mdplan run ${shellWord(planArg)}\`` : `The run going on (pid ${live})`
      const when = live === undefined ? '' : ' once it reads the file'
      const what = decision.kind === 'approve' ? `merges its work and starts its dependants${when}` : `runs ${agent} again with the note${when}`
      const said = decision.kind === 'approve' ? 'approved' : `sent back (${JSON.stringify(decision.note)})`
      io.stdout(`${agent}: ${said}. ${who} ${what}.\n`)
      done(exitCodes.ok)
    })
}
