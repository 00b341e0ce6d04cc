import {isMap, isScalar, isSeq, parseDocument, type Node} from 'yaml'
import {locate} from '../plan/locate.js'
import {normalizeKey} from '../plan/normalize-key.js'
import type {Diagnostic, Plan} from '../plan/types.js'
import type {NotifyTarget} from './notify-target.js'
import {readNotifyTarget, type NotifyReport} from './read-notify-target.js'

export interface PlanNotify {
  targets: NotifyTarget[]
  /** Every problem of `notify:`, each at its file:line:column (`invalid-notify`). */
  diagnostics: Diagnostic[]
}

/**
 * Front matter `notify:`: one target (a mapping) or a list of them. The YAML is read again here, with its
 * nodes' offsets, so a message points at the very key or value it is about. A front matter that does not parse
 * is reported by the plan's own reading (invalid-front-matter): no targets, nothing more said.
 */
export function readNotify(plan: Plan): PlanNotify {
  const diagnostics: Diagnostic[] = []
  const found = notifyNode(plan)
  if (!found) return {targets: [], diagnostics}
  const {node, offset, keyAt} = found
  const at = locate(plan.text)
  const report: NotifyReport = (reason, where, severity = 'error') => {
    const start = where?.range?.[0]
    diagnostics.push({severity, rule: 'invalid-notify', reason: `front matter \`notify\`: ${reason}`, file: plan.file, place: at.point(offset + (start ?? keyAt))})
  }
  const items: Array<Node | null> = isSeq(node) ? (node.items as Array<Node | null>) : [node]
  if (node === null || (!isMap(node) && !isSeq(node))) {
    report('must be a target (`{webhook_env: MDPLAN_HOOK}`) or a list of targets', node)
    return {targets: [], diagnostics}
  }
  const targets: NotifyTarget[] = []
  for (const item of items) {
    const target = readNotifyTarget(item, report)
    if (!target) continue
    if (targets.some((other) => other.key === target.key)) report('this target is named twice', item)
    else targets.push(target)
  }
  return {targets, diagnostics}
}

/** The value node of the front matter's `notify` key, the offset of the YAML in the plan, and the key's own offset in it. */
function notifyNode(plan: Plan): {node: Node | null; offset: number; keyAt: number} | undefined {
  const span = plan.settings.position
  if (!span || !Object.keys(plan.settings.raw).some((key) => normalizeKey(key) === 'notify')) return undefined
  // As readFrontMatter cuts it: from the line after the opening fence to the closing fence's line.
  const {text} = plan
  const offset = text.indexOf('\n', span.start.offset) + 1
  let end = Math.max(offset, text.lastIndexOf('\n', span.end.offset - 1))
  if (end > offset && text[end - 1] === '\r') end--
  const doc = parseDocument(text.slice(offset, end), {prettyErrors: false})
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined
  for (const pair of doc.contents.items) {
    const key = pair.key as Node
    if (isScalar(key) && normalizeKey(String(key.value)) === 'notify') return {node: (pair.value ?? null) as Node | null, offset, keyAt: key.range?.[0] ?? 0}
  }
  return undefined
}
