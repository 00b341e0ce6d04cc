import {dirname, posix} from 'node:path'

/**
 * `.gitattributes` patterns that cover `plans` (paths from the attributes
 * file's folder): `docs/plans/*.md` for a folder whose tracked Markdown files
 * are all plans (so later plans there are covered too), the plan's own path
 * otherwise (`/plan.md`: a pattern without a slash would match at any depth).
 * Glob characters are escaped, and a path with a space is quoted as git
 * reads it. Pure.
 */
export function planPatterns(plans: readonly string[], markdown: readonly string[]): string[] {
  const folders = new Map<string, string[]>()
  for (const plan of plans) {
    const folder = dirname(plan)
    folders.set(folder, [...(folders.get(folder) ?? []), plan])
  }
  const patterns: string[] = []
  for (const [folder, inside] of folders) {
    const all = markdown.filter((path) => dirname(path) === folder)
    if (all.every((path) => inside.includes(path))) patterns.push(quote(folder === '.' ? '/*.md' : `${escapeGlob(folder)}/*.md`))
    else for (const plan of inside) patterns.push(quote(plan.includes('/') ? escapeGlob(plan) : `/${escapeGlob(plan)}`))
  }
  return patterns
}

function escapeGlob(path: string): string {
  return posix.normalize(path).replace(/[\\*?[\]!]/g, '\\$&')
}

/** gitattributes reads a pattern that starts with `"` C-style: the way to keep a space or a tab in it. */
function quote(pattern: string): string {
  return /[\s"]/.test(pattern) ? `"${pattern.replace(/[\\"]/g, '\\$&').replace(/\t/g, '\\t')}"` : pattern
}
