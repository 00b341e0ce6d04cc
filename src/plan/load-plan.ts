import {NotRegularFileError, readRegularFileSync} from '../util/read-regular-file.js'
import path from 'node:path'
import {PlanError} from './plan-error.js'
import {cachedParse} from './parse-cache.js'
import {applyPromptsFile, parsePlan, type PromptsSource} from './parse-plan.js'
import type {Diagnostic, Plan} from './types.js'

const decoder = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

/**
 * Read a plan (and the prompts file of a two-file plan) and parse it. A file
 * that cannot be a plan (missing, a directory, empty, binary) is a PlanError
 * with one clear diagnostic; everything else is reported in `plan.messages`.
 * Never writes. `file` is what messages show; it is read relative to
 * `options.cwd` (default: the process's).
 */
export async function loadPlan(file: string, options: {cwd?: string; cache?: boolean} = {}): Promise<Plan> {
  const resolve = (name: string): string => (options.cwd ? path.resolve(options.cwd, name) : name)
  const source = await readText(resolve(file), file, 'plan')
  // `cache: false`: a process that reads a plan again at each of its changes (the page's server) would pay the
  // disk cache's read and write on every one, and never use an entry.
  const plan = options.cache === false ? parsePlan(source, file) : cachedParse(source, file, options.cwd ?? process.cwd())
  if (!plan.promptsFile) return plan

  let prompts: PromptsSource
  try {
    prompts = {file: plan.promptsFile.path, source: await readText(resolve(plan.promptsFile.path), plan.promptsFile.path, 'prompts file')}
  } catch (error) {
    if (!(error instanceof PlanError)) throw error
    plan.messages.push(
      ...error.diagnostics.map((d): Diagnostic => ({...d, rule: 'missing-prompts-file', file, place: plan.promptsFile!.position, reason: `${d.reason} (named by \`**Prompts:**\`)`}))
    )
    return plan
  }
  applyPromptsFile(plan, prompts)
  return plan
}

/** The file's text, or a PlanError saying in one line why it is not a readable text file. */
async function readText(where: string, file: string, what: string): Promise<string> {
  const fail = (rule: string, reason: string): PlanError => new PlanError([{severity: 'error', rule, reason, file}])
  let bytes: Buffer
  try {
    // A FIFO or a device would block the read forever (and SIGTERM with it): refused before any read.
    // Synchronous: a plan is one small local file, and fs.promises (with the readline and stream
    // modules it loads) was a tenth of a small plan's `status` beside Node's own start.
    bytes = readRegularFileSync(where)
  } catch (error) {
    if (error instanceof NotRegularFileError) throw fail('not-a-file', `${what} \`${file}\` is ${error.kind}, not a Markdown file`)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EISDIR') throw fail('not-a-file', `${what} \`${file}\` is a directory, not a Markdown file`)
    if (code === 'ENOENT') throw fail('file-not-found', `${what} \`${file}\` does not exist`)
    if (code === 'EACCES' || code === 'EPERM') throw fail('file-unreadable', `${what} \`${file}\` cannot be read (permission denied)`)
    throw fail('file-unreadable', `${what} \`${file}\` cannot be read (${code ?? (error as Error).message})`)
  }
  if (bytes.length === 0 || bytes.toString('utf8').trim() === '') throw fail('empty-file', `${what} \`${file}\` is empty`)
  if (bytes.includes(0)) throw fail('binary-file', `${what} \`${file}\` is binary (it holds NUL bytes), not a Markdown file`)
  try {
    return decoder.decode(bytes)
  } catch {
    throw fail('binary-file', `${what} \`${file}\` is not valid UTF-8 text`)
  }
}
