import type {Node} from 'unist'

/**
 * Drop the inline content of paragraphs and tables: plan reading uses their
 * positions (and the source text), never their phrasing nodes, which are most
 * of a tree's weight. Headings, code, lists and list items stay whole.
 */
export function leanTree<T extends Node>(node: T): T {
  const parent = node as unknown as {type: string; children?: Node[]}
  if (!parent.children) return node
  if (parent.type === 'paragraph' || parent.type === 'table') parent.children = []
  else for (const child of parent.children) leanTree(child)
  return node
}
