/**
 * Whether a changed `path` (repository-relative, `/`-separated) falls under a
 * declared entry of `creates` / `modifies` / `deletes`. Plans declare exact
 * files mostly, sometimes a folder (`src/lib/`, `src/lib`) or a simple glob
 * (`src/*.ts`, `test/**`). Brackets are literal: `app/api/[id]/route.ts` is a
 * real Next.js path, not a character class.
 */
export function pathMatches(declared: string, path: string): boolean {
  const pattern = normalizePath(declared)
  const file = normalizePath(path)
  if (pattern === '' || file === '') return false
  if (pattern === file) return true
  if (!/[*?]/.test(pattern)) return file.startsWith(pattern.endsWith('/') ? pattern : `${pattern}/`)
  return globToRegExp(pattern).test(file)
}

/** `./src//x.ts` → `src/x.ts`; backslashes become slashes; a trailing `/` is kept (it marks a folder). */
export function normalizePath(path: string): string {
  let text = path.trim().replaceAll('\\', '/').replace(/\/{2,}/g, '/')
  while (text.startsWith('./')) text = text.slice(2)
  if (text.startsWith('/')) text = text.slice(1)
  return text === '.' ? '' : text
}

const cache = new Map<string, RegExp>()

function globToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern)
  if (cached) return cached
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` matches zero or more folders; a trailing `**` matches everything below.
      if (pattern[i + 2] === '/') {
        source += '(?:.*/)?'
        i += 2
      } else {
        source += '.*'
        i += 1
      }
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  // A glob naming a folder (`src/*`) also covers what is inside it.
  const regexp = new RegExp(`^${source}(?:/.*)?$`)
  cache.set(pattern, regexp)
  return regexp
}
