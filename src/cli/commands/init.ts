import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {directoryProblem} from '../directory-problem.js'
import {exitCodes} from '../../exit-codes.js'
import {installCommands, type InstallAction} from '../../init/install-commands.js'
import {formatDriverSetup} from '../../init/format-driver-setup.js'
import {installMergeDriver} from '../../init/install-merge-driver.js'

const said: Record<InstallAction, string> = {
  created: 'created',
  unchanged: 'unchanged',
  updated: 'updated',
  overwritten: 'overwritten (--force)',
  'skipped-modified': 'skipped: you changed this file; run `mdplan init --force` to replace it',
  removed: 'removed (an older mdplan installed it; the skill above replaces it)',
  'kept-retired': 'kept: you changed this older command, and Claude Code would load it beside the new skill; delete it, or run `mdplan init --force`'
}

export const registerInit: RegisterCommand = (program, io, done) => {
  program
    .command('init')
    .description('Install /execute-parallel-plan for Claude Code and the execute-parallel-plan skill for Codex')
    .option('--force', 'replace the files even if you changed them')
    .option('--dir <dir>', 'the project folder to install into', '.')
    .option('--git [plans]', 'also make git merge plans with `mdplan merge-driver` (.gitattributes and git config; default: the plans tracked in the repository, else plans/*.md)')
    .addHelpText(
      'after',
      '\nInstalls .claude/skills/execute-parallel-plan/SKILL.md and .agents/skills/execute-parallel-plan/SKILL.md\n' +
        '(and removes the .claude/commands/execute-parallel-plan.md an older mdplan installed, unless you changed it).\n' +
        'Running it again is safe: unchanged files are left alone, files you edited are kept unless --force.\n'
    )
    .action(async (options: {force?: boolean; dir: string; git?: string | true}) => {
      const root = resolve(io.cwd, options.dir)
      const rootProblem = directoryProblem(root)
      if (rootProblem !== undefined) {
        io.stderr(`mdplan init: --dir ${options.dir} ${rootProblem}; nothing was installed.\n`)
        return done(exitCodes.invalid)
      }
      if (options.git !== undefined) {
        const setup = await installMergeDriver({root, plans: options.git === true ? undefined : options.git, force: options.force})
        io.stdout(formatDriverSetup(setup))
      }
      const results = await installCommands({root, force: options.force ?? false})
      for (const result of results) io.stdout(`${result.path}: ${said[result.action]}\n`)
      if (results.some((result) => result.action === 'created' || result.action === 'updated' || result.action === 'overwritten')) {
        io.stdout('Next: in Claude Code, type `/execute-parallel-plan plan.md`; in Codex, mention `$execute-parallel-plan` with the plan.\n')
      }
      // A kept file is the person's choice, not a failure: say so, and still succeed.
      done(exitCodes.ok)
    })
}
