import {locateStateSection} from './locate-state-section.js'

/** The text of a plan's `## Execution State` section as its lines hold it (BOM left out), or undefined when it has none or its span needs a parse. */
export function stateSectionText(text: string): string | undefined {
  const body = text.replace(/^\uFEFF/, '')
  const span = locateStateSection(body)
  return span ? body.slice(span.start, span.end) : undefined
}

/** Whether two plans' texts hold the same state section, byte for byte (`a` undefined: never, as either without one). */
export function sameStateSection(a: string | undefined, b: string): boolean {
  const section = a === undefined ? undefined : stateSectionText(a)
  return section !== undefined && section === stateSectionText(b)
}
