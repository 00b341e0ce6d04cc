import type {Produced} from './commit-file.js'
import {formatStamp, restamp, stampFormat} from './format-stamp.js'
import {renderMetaAgain, renderState, type RenderedState} from './render-state.js'
import type {StateLayout} from './state-layout.js'
import type {TableMeta, TableState} from './table-state.js'

export interface Assembled {
  data: Buffer
  text?: string
  sectionBytes?: {start: number; end: number}
  /** The section's bytes in `data`, when the caller has them (the rendered text is then never joined). */
  section?: string | Uint8Array
}

export interface StampInput {
  layout: StateLayout
  state: TableState
  /** The meta lines as the file has them. */
  file: TableMeta
  /** `Last updated:` as mdplan last wrote it: a caller's value that differs from it is a new one to keep. */
  given: string | undefined
  now: () => Date
  /** The agents whose rows may differ from the ones `layout` shows (`RenderOptions.changed`). */
  changed?: readonly string[] | undefined
}

/**
 * Render `state` into `layout`, first with the file's own `Last updated:`:
 * when that leaves the section as it is (`unchanged` of the rendered section
 * says so, or nothing in it changed), there is nothing to write. Otherwise
 * stamp it (the caller's new value, or now), in the format the file uses; a
 * new `Started:` goes in that format too. The file's bytes are assembled once.
 */
export function renderStamped(input: StampInput, unchanged: (rendered: RenderedState) => boolean, assemble: (rendered: RenderedState) => Assembled): Produced {
  const {layout, state, file} = input
  const format = stampFormat(file.lastUpdated, file.started)
  const meta = {...state.meta, lastUpdated: file.lastUpdated}
  if (meta.started && meta.started !== file.started) meta.started = restamp(meta.started, format)
  let next: TableState = {rows: state.rows, meta}
  let rendered = renderState(layout, next, {overflow: true, ...(input.changed ? {changed: input.changed} : {})})
  if (!rendered.same && !unchanged(rendered)) {
    const wanted = state.meta.lastUpdated
    const stamp = wanted !== undefined && wanted !== '' && wanted !== input.given ? restamp(wanted, format) : formatStamp(input.now(), format)
    next = {rows: state.rows, meta: {...meta, lastUpdated: stamp}}
    // From the first render: its rows are done, only the meta line changes.
    rendered = renderMetaAgain(rendered, next, {overflow: true})
  }
  const out = assemble(rendered)
  return {...out, layout: rendered.layout, section: out.section ?? rendered.text, state: next, humanEdits: [], conflicts: [], clean: true}
}
