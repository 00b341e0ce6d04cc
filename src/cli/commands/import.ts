import {open, readFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'
import {ImportError, readIssues} from '../../import/read-issues.js'
import {issuesToPlan} from '../../import/issues-to-plan.js'

export const registerImport: RegisterCommand = (program, io, done) => {
  program
    .command('import')
    .description('Turn a team-planex issue queue (JSONL) into a plan: a planning and an executing agent per open issue')
    .argument('<issues>', 'the issues file, one JSON object a line (e.g. .workflow/issues/issues.jsonl)')
    .option('-o, --out <plan>', 'the plan to write (`-` for stdout)', 'plan.md')
    .option('--runner <runner>', 'the runner the plan uses (claude, codex, shell, or a command template)')
    .option('--force', 'overwrite --out if it exists')
    .addHelpText(
      'after',
      '\nEach line: {"id", "title", "status", "tags": ["wave-1", …], "context", "extended_context": {"notes": {"depends_on_issues": […]}}}.\n' +
        'Completed issues are skipped (dependencies on them count as done); waves run in order; the\n' +
        'planning agent P<n> of an issue runs while earlier issues execute. Then: `mdplan run plan.md`.\n'
    )
    .action(async (issuesPath: string, options: {out: string; runner?: string; force?: boolean}) => {
      let text: string
      try {
        text = await readFile(resolve(io.cwd, issuesPath), 'utf8')
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        io.stderr(`mdplan import: cannot read ${issuesPath} (${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}); check the path.\n`)
        return done(exitCodes.invalid)
      }

      let plan
      try {
        plan = issuesToPlan(readIssues(text, issuesPath), {source: issuesPath, runner: options.runner})
      } catch (error) {
        if (!(error instanceof ImportError)) throw error
        io.stderr(error.problems.map((problem) => problem + '\n').join(''))
        io.stderr(`Nothing was written. Fix ${error.problems.length === 1 ? 'this line' : 'these lines'} and run \`mdplan import ${issuesPath}\` again.\n`)
        return done(exitCodes.invalid)
      }
      for (const warning of plan.warnings) io.stderr(`warning: ${warning}\n`)

      if (options.out === '-') {
        io.stdout(plan.text)
        return done(exitCodes.ok)
      }
      try {
        // `wx` refuses an existing file in the same step that creates it.
        const handle = await open(resolve(io.cwd, options.out), options.force ? 'w' : 'wx')
        try {
          await handle.writeFile(plan.text)
        } finally {
          await handle.close()
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        io.stderr(`mdplan import: ${options.out} already exists; choose another --out, or add --force to replace it.\n`)
        return done(exitCodes.invalid)
      }
      const agents = plan.imported.length * 2
      io.stdout(
        `${options.out}: ${plan.imported.length} issue${plan.imported.length === 1 ? '' : 's'} → ${agents} agents` +
          (plan.skipped.length > 0 ? `, ${plan.skipped.length} completed skipped` : '') +
          `\nNext: review it, then \`mdplan run ${options.out}\`.\n`
      )
      done(exitCodes.ok)
    })
}
