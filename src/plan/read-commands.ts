import type {RootContent} from 'mdast'
import type {Command} from './types.js'
import type {Locator} from './locate.js'

const shells = new Set(['bash', 'sh', 'shell', 'zsh'])

/** The fenced `bash`/`sh` blocks of a section that runs commands, in order (nested ones included). */
export function readCommands(nodes: RootContent[], at: Locator): Command[] {
  const commands: Command[] = []
  const visit = (node: RootContent): void => {
    if (node.type === 'code') {
      const lang = node.lang?.toLowerCase() ?? ''
      if (shells.has(lang)) {
        commands.push({lang, script: node.value.replace(/\r\n?/g, '\n'), position: at.span(node.position!.start.offset!, node.position!.end.offset!)})
      }
      return
    }
    if ('children' in node) for (const child of node.children as RootContent[]) visit(child)
  }
  for (const node of nodes) visit(node)
  return commands
}
