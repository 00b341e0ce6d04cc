import type {Root} from 'mdast'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'

// One frozen processor: building it per call costs more than small plans take to parse.
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()

/** Markdown (GFM + YAML front matter) to mdast, with positions. Pass text without a BOM. */
export function parseMarkdown(text: string): Root {
  return processor.parse(text)
}
