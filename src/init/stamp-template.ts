import {createHash} from 'node:crypto'

const markerPattern = /^<!-- mdplan:([a-z0-9-]+) v(\d+) sha256:([0-9a-f]{64}) -->\r?\n/m

/**
 * The file mdplan installs: the template with a marker line after its front
 * matter, `<!-- mdplan:NAME vN sha256:HASH -->`, where HASH is the hash of
 * the rest of the file. The marker lets a later `mdplan init` tell a file the
 * person edited (hash no longer matches) from one it may upgrade.
 */
export function stampTemplate(template: string, name: string, version: number): string {
  const text = template.replace(/\r\n/g, '\n')
  const marker = `<!-- mdplan:${name} v${version} sha256:${hashOf(text)} -->\n`
  const frontMatter = /^---\n[\s\S]*?\n---\n/.exec(text)
  // Front matter must stay the first thing in the file for Claude and Codex to read it.
  const at = frontMatter ? frontMatter[0].length : 0
  return text.slice(0, at) + marker + text.slice(at)
}

/** Whether `installed` is a file mdplan wrote and nobody changed since (of any template version). */
export function isPristine(installed: string): boolean {
  const text = installed.replace(/\r\n/g, '\n')
  const match = markerPattern.exec(text)
  if (!match) return false
  const rest = text.slice(0, match.index) + text.slice(match.index + match[0].length)
  return hashOf(rest) === match[3]
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
