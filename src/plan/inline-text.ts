interface InlineNode {
  type: string
  value?: string
  children?: InlineNode[]
}

/** The plain text of a heading or paragraph: text and inline code, formatting dropped. */
export function inlineText(node: InlineNode): string {
  if (typeof node.value === 'string') return node.value
  if (!node.children) return ''
  let text = ''
  for (const child of node.children) text += inlineText(child)
  return text
}
