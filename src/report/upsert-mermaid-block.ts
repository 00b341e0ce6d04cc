export const dagSectionTitle = 'DAG Visualization'

/** The line that marks a Mermaid block as mdplan's: a block without it is the person's and is never replaced. */
export const mermaidMarker = '%% mdplan graph: redrawn from the Execution State; edits here are overwritten'

/**
 * The `## DAG Visualization` section with `mermaid` as its ```` ```mermaid ````
 * block: the block mdplan wrote before (the one holding `mermaidMarker`) is
 * replaced; with none, one is added after the section's content; with no
 * section, a new one is made. Every other byte of the section (the hand-drawn
 * picture above all, even one drawn in Mermaid) stays as it was.
 *
 * `sectionText` is the whole section, heading included, as it is in the file.
 */
export function upsertMermaidBlock(sectionText: string | undefined, mermaid: string, eol: '\n' | '\r\n'): string {
  const [first = '', ...rest] = mermaid.replace(/\r?\n$/, '').split(/\r?\n/)
  // After the diagram type, not before it: some Mermaid versions want the type first.
  const body = [first, mermaidMarker, ...rest]
  if (sectionText === undefined) {
    return [`## ${dagSectionTitle}`, '', '```mermaid', ...body, '```', ''].join(eol)
  }

  const lines = splitKeepingEnds(sectionText)
  const found = findMermaidFence(lines)
  if (found) {
    const {open, close, fence, indent} = found
    // Keep the fence's own style and the line ending after it.
    const closeEnd = lines[close]!.slice(lineText(lines[close]!).length)
    const block = [lineText(lines[open]!), ...body.map((line) => (line === '' ? '' : indent + line)), indent + fence].join(eol) + closeEnd
    return lines.slice(0, open).join('') + block + lines.slice(close + 1).join('')
  }

  // Insert after the last non-blank line, keeping the blank lines that separate the next section.
  let last = lines.length - 1
  while (last > 0 && lineText(lines[last]!).trim() === '') last--
  const head = lines.slice(0, last + 1).join('')
  const tail = lines.slice(last + 1).join('')
  const headEnd = /\r?\n$/.test(head) ? '' : eol
  const block = ['', '```mermaid', ...body, '```'].join(eol)
  // A section at the very end of a file without a final newline keeps that.
  return head + headEnd + block + (tail === '' && !/\r?\n$/.test(sectionText) ? '' : eol) + tail
}

function splitKeepingEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

function lineText(line: string): string {
  return line.replace(/\r?\n$/, '')
}

/** The first fenced `mermaid` block holding the marker, by line index (open and close). */
function findMermaidFence(lines: readonly string[]): {open: number; close: number; fence: string; indent: string} | undefined {
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/.exec(lineText(lines[i]!))
    if (!open) continue
    const [, indent, fence, info] = open as unknown as [string, string, string, string]
    let close = lines.length
    for (let j = i + 1; j < lines.length; j++) {
      const text = lineText(lines[j]!)
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(text)) {
        close = j
        break
      }
    }
    const ours = lines.slice(i + 1, close).some((line) => lineText(line).trim() === mermaidMarker)
    if (info.toLowerCase() === 'mermaid' && close < lines.length && ours) return {open: i, close, fence, indent}
    // Skip past this block: a fence inside it is not a fence.
    i = close
  }
  return undefined
}
