/** One issue of a team-planex queue (`.workflow/issues/issues.jsonl`), as mdplan uses it. */
export interface Issue {
  id: string
  title: string
  status: string
  /** From a `wave-N` tag, else `extended_context.notes.wave`. */
  wave?: number
  dependsOn: string[]
  /** The issue's Markdown (`context`, else `description` / `body`). */
  context?: string
  /** The queue's test strategy and the like, shown to the executing agent. */
  requirements: Record<string, string>
  /** 1-based line in the JSONL file. */
  line: number
}

/**
 * What an issue id may be: it travels into agent fields, prompts, notes file
 * names and commit messages, so it must stay one plain word there. Anything
 * else (a newline, a space, `#`, a backtick) is refused, not rewritten: a
 * rewritten id would no longer match the queue's.
 */
export const issueIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/

/** Problems with the input, each naming its line: the import writes nothing when there are any. */
export class ImportError extends Error {
  readonly problems: string[]

  constructor(problems: string[]) {
    super(problems.join('\n'))
    this.name = 'ImportError'
    this.problems = problems
  }
}

/**
 * Parse a JSONL issue queue. Blank lines are skipped; every other line must be
 * a JSON object with an `id`. All problems are collected, then thrown together
 * as `file:line: reason`.
 */
export function readIssues(text: string, file: string): Issue[] {
  const issues: Issue[] = []
  const problems: string[] = []
  const lines = text.replace(/^\ufeff/, '').split(/\r?\n/)
  for (const [index, source] of lines.entries()) {
    const line = index + 1
    if (source.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch (error) {
      problems.push(`${file}:${line}: not valid JSON: ${(error as Error).message}`)
      continue
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${file}:${line}: not a JSON object (each line must be one issue: {"id": …, "title": …, "status": …})`)
      continue
    }
    const record = value as Record<string, unknown>
    if (typeof record.id !== 'string' && typeof record.id !== 'number') {
      problems.push(`${file}:${line}: the issue has no "id"`)
      continue
    }
    const id = String(record.id)
    if (!issueIdPattern.test(id)) {
      problems.push(`${file}:${line}: "id" ${badId(id)}`)
      continue
    }
    const notes = objectAt(objectAt(record, 'extended_context'), 'notes')
    const tags = Array.isArray(record.tags) ? record.tags.filter((tag): tag is string => typeof tag === 'string') : []
    const waveTag = tags.map((tag) => /^wave-(\d+)$/i.exec(tag.trim())).find((match) => match !== null)
    const wave = waveTag ? Number(waveTag[1]) : typeof notes.wave === 'number' ? notes.wave : undefined
    const deps = notes.depends_on_issues
    if (deps !== undefined && !Array.isArray(deps)) {
      problems.push(`${file}:${line}: "extended_context.notes.depends_on_issues" must be a list of issue ids`)
      continue
    }
    const badDep = (deps ?? []).findIndex((dep) => (typeof dep !== 'string' && typeof dep !== 'number') || !issueIdPattern.test(String(dep)))
    if (badDep !== -1) {
      const dep = (deps as unknown[])[badDep]
      problems.push(`${file}:${line}: "extended_context.notes.depends_on_issues[${badDep}]" ${typeof dep === 'string' || typeof dep === 'number' ? badId(String(dep)) : 'must be an issue id (a string)'}`)
      continue
    }
    const issue: Issue = {
      id,
      title: typeof record.title === 'string' ? record.title : '',
      status: typeof record.status === 'string' ? record.status : 'pending',
      dependsOn: (deps ?? []).map(String),
      requirements: Object.fromEntries(
        Object.entries(objectAt(record, 'lifecycle_requirements')).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      ),
      line
    }
    if (wave !== undefined) issue.wave = wave
    const context = [record.context, record.description, record.body].find((candidate) => typeof candidate === 'string' && candidate.trim() !== '')
    if (typeof context === 'string') issue.context = context
    issues.push(issue)
  }

  const seen = new Map<string, number>()
  for (const issue of issues) {
    const first = seen.get(issue.id)
    if (first !== undefined) problems.push(`${file}:${issue.line}: issue "${issue.id}" already appears on line ${first}`)
    else seen.set(issue.id, issue.line)
  }
  if (problems.length > 0) throw new ImportError(problems.sort(byLine))
  return issues
}

function badId(id: string): string {
  const shown = JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)
  return `is not an issue id: ${shown}; an id is a letter or digit, then letters, digits, \`.\`, \`_\`, \`:\`, \`/\`, \`@\`, \`+\` or \`-\` (at most 128)`
}

function objectAt(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = record[key]
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function byLine(a: string, b: string): number {
  const line = (text: string): number => Number(/:(\d+):/.exec(text)?.[1] ?? 0)
  return line(a) - line(b)
}
