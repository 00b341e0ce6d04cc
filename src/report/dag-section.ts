import type {Plan, Section} from '../plan/types.js'
import {renderMermaid} from './render-mermaid.js'
import {dagSectionTitle, mermaidMarker, upsertMermaidBlock} from './upsert-mermaid-block.js'

/**
 * The new `## DAG Visualization` section for `plan`: its Mermaid block redrawn
 * from the plan's current statuses, everything else in it kept. Shaped as an
 * editor for `store.editSection('DAG Visualization', dagSection)`, so the
 * executor can keep the picture current after every state write.
 */
export function dagSection(current: Section | undefined, plan: Plan): string {
  const text = current ? plan.text.slice(current.section.start.offset, current.section.end.offset) : undefined
  return upsertMermaidBlock(text, renderMermaid(plan), plan.eol)
}

/**
 * Whether the plan holds a Mermaid block mdplan wrote (`mdplan graph --write`
 * was run once): then the executor keeps it current after each state write.
 */
export function tracksGraph(plan: Plan): boolean {
  const section = plan.sections.find((s) => s.title.trim().toLowerCase() === dagSectionTitle.toLowerCase())
  return section !== undefined && section.body.includes(mermaidMarker)
}
