import {readFileSync} from 'node:fs'
import {mkdir, open, stat} from 'node:fs/promises'
import {dirname, relative, resolve, sep} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import type {Io} from '../io.js'
import {exitCodes} from '../../exit-codes.js'
import {ImportError, readIssues, type Issue} from '../../import/read-issues.js'
import {issuesToPlan, type IssuesPlan} from '../../import/issues-to-plan.js'
import {addIssuesToPlan} from '../../import/add-issues-to-plan.js'
import {parsePlan} from '../../plan/parse-plan.js'
import {conflictDiagnostics} from '../../plan/conflict-diagnostics.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {atomicWrite} from '../../store/atomic-write.js'
import {withWriteMutex} from '../../store/write-mutex.js'
import {importRunnerProblem} from '../../import/import-runner-problem.js'
import {errnoText, fileProblem, readRegularFile} from '../../util/read-regular-file.js'
import {outPathProblem} from '../directory-problem.js'
import {plural} from '../../util/plural.js'
import {shellWord} from '../../util/shell-word.js'

export const registerImport: RegisterCommand = (program, io, done) => {
  program
    .command('import')
    .description('Turn a team-planex issue queue (JSONL) into a plan: a planning and an executing agent per open issue')
    .argument('<issues>', 'the issues file, one JSON object a line (e.g. .workflow/issues/issues.jsonl)')
    .option('-o, --out <plan>', 'the plan to write (`-` for stdout)', 'plan.md')
    .option('--runner <runner>', 'the runner the plan uses (claude, codex, shell, or a command template)')
    .option('--data-program <program>', 'a program the --runner template passes prompt text to as data (recorded as template_data_programs; repeat for more)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--force', 'overwrite --out if it exists')
    .addHelpText(
      'after',
      '\nEach line: {"id", "title", "status", "tags": ["wave-1", …], "context", "extended_context": {"notes": {"depends_on_issues": […]}}}.\n' +
        'Completed issues are skipped (dependencies on them count as done); waves run in order; the\n' +
        'planning agent P<n> of an issue runs while earlier issues execute. Then: `mdplan run plan.md`.\n' +
        'The plan records its queue (front matter `issues:`): a run marks an issue completed in the queue\n' +
        'when its executing agent completes, and importing the same queue into that plan again adds the\n' +
        'agents of the issues it gained, touching nothing else.\n'
    )
    .action(async (issuesPath: string, options: ImportOptions) => {
      done(await importQueue(issuesPath, options, io))
    })
}

interface ImportOptions {
  out: string
  runner?: string
  dataProgram?: string[]
  force?: boolean
}

/** `mdplan import ISSUES`: the queue read, turned into a plan, and the plan printed, written, or grown. Resolves to the exit code. */
async function importQueue(issuesPath: string, options: ImportOptions, io: Io): Promise<number> {
  if (options.runner !== undefined) {
    const problem = importRunnerProblem(options.runner, options.dataProgram)
    if (problem !== undefined) {
      io.stderr(`mdplan import: --runner ${options.runner} is refused: ${problem}. Nothing was written.\n`)
      return exitCodes.invalid
    }
  }
  let text: string
  const queue = resolve(io.cwd, issuesPath)
  try {
    text = (await readRegularFile(queue)).toString('utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    io.stderr(`mdplan import: cannot read ${issuesPath} (${code === 'ENOENT' ? 'no such file' : fileProblem(error)}); check the path.\n`)
    return exitCodes.invalid
  }
  const out = options.out === '-' ? undefined : resolve(io.cwd, options.out)
  const outProblem = out === undefined ? undefined : outPathProblem(out)
  if (outProblem !== undefined) {
    io.stderr(`mdplan import: --out ${options.out} ${outProblem}; nothing was written, choose another --out.\n`)
    return exitCodes.invalid
  }
  // The queue as the plan's front matter records it: from the plan's folder, with `/`.
  const recorded = relative(out ? dirname(out) : io.cwd, queue).split(sep).join('/')

  let issues: Issue[]
  let plan: IssuesPlan
  try {
    issues = readIssues(text, issuesPath)
    plan = issuesToPlan(issues, {source: issuesPath, runner: options.runner, dataPrograms: options.dataProgram, queue: recorded})
  } catch (error) {
    if (!(error instanceof ImportError)) throw error
    io.stderr(error.problems.map((problem) => problem + '\n').join(''))
    io.stderr(`Nothing was written. Fix ${error.problems.length === 1 ? 'this line' : 'these lines'} and run \`mdplan import ${shellWord(issuesPath)}\` again.\n`)
    return exitCodes.invalid
  }
  for (const warning of plan.warnings) io.stderr(`warning: ${warning}\n`)

  if (!out) {
    io.stdout(plan.text)
    return exitCodes.ok
  }
  return writeImported(out, {queue, issues, issuesPath, plan}, options, io)
}

/** The imported plan into `--out`: a plan imported from this queue grown, else a new file (replaced only with `--force`). */
async function writeImported(out: string, imported: {queue: string; issues: Issue[]; issuesPath: string; plan: IssuesPlan}, options: ImportOptions, io: Io): Promise<number> {
  const {plan} = imported
  // A plan a merge left conflicted is the person's to resolve: never grown, never replaced.
  const conflicted = conflictedOut(out, options.out)
  if (conflicted.length > 0) {
    for (const diagnostic of conflicted) io.stderr(formatDiagnostic(diagnostic) + '\n')
    io.stderr(`mdplan import: ${options.out} holds conflict markers; nothing was written. Resolve it first.\n`)
    return exitCodes.invalid
  }
  if (!options.force) {
    const grown = await growExisting(out, imported.queue, imported.issues, imported.issuesPath, io)
    if (grown !== undefined) return grown
  }
  try {
    await mkdir(dirname(out), {recursive: true})
    // `wx` refuses an existing file in the same step that creates it.
    const handle = await open(out, options.force ? 'w' : 'wx')
    try {
      await handle.writeFile(plan.text)
    } finally {
      await handle.close()
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') io.stderr(`mdplan import: ${options.out} already exists; choose another --out, or add --force to replace it.\n`)
    else io.stderr(`mdplan import: cannot write ${options.out} (${errnoText(error)}); choose another --out.\n`)
    return exitCodes.invalid
  }
  // The count is the plan's: issuesToPlan read the text back and found exactly these agents.
  const agents = plan.agentIds.length
  io.stdout(
    `${options.out}: ${plural(plan.imported.length, 'issue')} → ${plural(agents, 'agent')}` +
      (plan.skipped.length > 0 ? `, ${plan.skipped.length} completed skipped` : '') +
      `\nNext: review it, then \`mdplan run ${shellWord(options.out)}\`.\n`
  )
  return exitCodes.ok
}

/** `--out` is a plan imported from this very queue: add the issues it lacks. Undefined when it is not (or does not exist). */
async function growExisting(out: string, queue: string, issues: Issue[], issuesPath: string, io: Io): Promise<number | undefined> {
  let source: string
  try {
    source = (await readRegularFile(out)).toString('utf8')
  } catch {
    return undefined
  }
  const existing = parsePlan(source, out)
  const from = existing.settings.raw.issues
  if (typeof from !== 'string' || resolve(dirname(out), from) !== queue) return undefined
  // The new agents run with the plan's own runner.
  const runnerProblem = existing.settings.runner === undefined ? undefined : importRunnerProblem(existing.settings.runner, existing.settings.templateDataPrograms?.names)
  if (runnerProblem !== undefined) {
    io.stderr(`mdplan import: ${relative(io.cwd, out) || out} runs its agents with \`${existing.settings.runner}\`, which is refused for imported issues: ${runnerProblem}. Nothing was written.\n`)
    return exitCodes.invalid
  }
  let added
  try {
    added = addIssuesToPlan(existing, issues, issuesPath)
  } catch (error) {
    if (!(error instanceof ImportError)) throw error
    io.stderr(error.problems.map((problem) => problem + '\n').join(''))
    io.stderr(`Nothing was written. Fix the queue and run \`mdplan import ${shellWord(issuesPath)}\` again.\n`)
    return exitCodes.invalid
  }
  const name = relative(io.cwd, out) || out
  if (added.text === undefined) {
    io.stdout(`${name}: no new open issue in ${issuesPath}; the plan is unchanged.\n`)
    return exitCodes.ok
  }
  const text = added.text
  const mode = (await stat(out)).mode & 0o7777
  // The plan's write mutex: a running mdplan's store checks and renames under it too.
  let raced = false
  atomicWrite(out, Buffer.from(text), {
    mode,
    exclusive: (checkAndRename) => withWriteMutex(out, checkAndRename),
    beforeRename: () => {
      raced = !sameFile(out, source)
      return !raced
    }
  })
  if (raced) {
    io.stderr(`mdplan import: ${name} changed while the issues were being added; nothing was written, run it again.\n`)
    return exitCodes.failed
  }
  io.stdout(`${name}: ${plural(added.imported.length, 'new issue')} → ${added.agentIds.join(', ')} added\nNext: \`mdplan run ${shellWord(name)}\`.\n`)
  return exitCodes.ok
}

function conflictedOut(file: string, shown: string): ReturnType<typeof conflictDiagnostics> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  return conflictDiagnostics(parsePlan(text, shown))
}

function sameFile(file: string, text: string): boolean {
  try {
    return readFileSync(file, 'utf8') === text
  } catch {
    return false
  }
}
