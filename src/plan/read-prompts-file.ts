import {agentHeading} from './agent-heading.js'
import {inlineText} from './inline-text.js'
import {locate} from './locate.js'
import {parseMarkdown} from './parse-markdown.js'
import {trimLines} from './trim-lines.js'
import type {Prompt} from './types.js'

/**
 * The prompts of a two-file plan: each `## <ID>: <name>` section (or `###`)
 * of the prompts file is that agent's prompt, trimmed of blank lines.
 */
export function readPromptsFile(source: string, file: string): Map<string, Prompt> {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source
  const at = locate(text)
  const nodes = parseMarkdown(text, {lean: true}).children
  const prompts = new Map<string, Prompt>()
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index]!
    if (node.type !== 'heading' || node.depth < 2 || node.depth > 3) continue
    const named = agentHeading(inlineText(node))
    if (!named || prompts.has(named.id)) continue
    let end = text.length
    for (let next = index + 1; next < nodes.length; next++) {
      const after = nodes[next]!
      if (after.type === 'heading' && after.depth <= node.depth) {
        end = after.position!.start.offset!
        break
      }
    }
    const [from, to] = trimLines(text, node.position!.end.offset!, end)
    const body = text.slice(from, to)
    prompts.set(named.id, {text: body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body, source: 'prompts-file', file, position: at.span(from, to)})
  }
  return prompts
}
