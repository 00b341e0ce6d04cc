import type {RegisterCommand} from '../command-result.js'
import {cleanPlan} from '../../run/clean-plan.js'
import {reportFailure} from '../report-failure.js'

/**
 * `mdplan clean PLAN [--dry-run] [--force]`: remove the plan's finished jobs and their folders on every host
 * that may hold one, on demand (a run sweeps them at its start and end too, on the hosts that answer).
 */
export const registerClean: RegisterCommand = (program, io, done) => {
  program
    .command('clean')
    .description("Remove a plan's finished jobs and their folders on every host that may hold one (and on this machine)")
    .argument('<plan>', 'the plan file (Markdown)')
    .option('--dry-run', 'say what would be removed and what is kept; remove nothing')
    .option('--force', "also remove the jobs the rows still need (an in_progress row's job, a work: folder), ending any that runs")
    .addHelpText(
      'after',
      '\nNever another plan\'s jobs (only keys of this plan\'s own prefix). Takes the plan\'s lock: a run that goes on keeps its jobs.\n' +
        'Exit codes: 0 done; 1 a host did not answer (its jobs stay; run clean again once it does); 2 the plan cannot be read; 3 a run holds the plan.\n'
    )
    .action(async (file: string, flags: {dryRun?: boolean; force?: boolean}) => {
      try {
        done(await cleanPlan({file, cwd: io.cwd, dryRun: flags.dryRun ?? false, force: flags.force ?? false, say: (line) => io.stdout(line + '\n')}))
      } catch (error) {
        done(reportFailure(error, io))
      }
    })
}
