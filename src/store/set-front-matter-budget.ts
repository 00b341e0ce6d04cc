import {isMap, isPair, isScalar, parseDocument, type Node, type Pair} from 'yaml'
import type {Budget, Plan} from '../plan/types.js'
import {normalizeKey} from '../plan/normalize-key.js'
import {readBudget} from '../plan/read-budget.js'
import {parseTokenCount} from '../util/parse-token-count.js'
import type {SectionEdit} from './replace-section.js'

/** One replacement in the text: [start, end) becomes `text`. */
interface Splice {
  start: number
  end: number
  text: string
}

/**
 * The plan's text with its front matter's `budget` set to `budget` (the dimensions it names; the others it
 * had stay), changing only those bytes: a value replaced where it is written (`20M` in `budget: {tokens: 20M,
 * usd: 50}`, or in a block mapping), a missing dimension added beside the others, a missing `budget:` line
 * added at the end of the front matter, and a plan with none gets one. Pure.
 */
export function setFrontMatterBudget(plan: Plan, budget: Budget): SectionEdit {
  const {text, eol} = plan
  const wanted = Object.entries(budget).filter(([, value]) => value !== undefined) as Array<[keyof Budget, number]>
  const block = plan.settings.position
  if (block === undefined) return apply(text, [{start: 0, end: 0, text: `---${eol}budget: ${flow(wanted)}${eol}---${eol}${eol}`}])
  const start = block.start.offset
  const valueStart = text.indexOf('\n', start) + 1
  const fenceLine = text.lastIndexOf('\n', block.end.offset - 1) + 1
  const doc = parseDocument(text.slice(valueStart, Math.max(valueStart, fenceLine)))
  const pair = isMap(doc.contents) ? doc.contents.items.find((item) => isScalar(item.key) && normalizeKey(String(item.key.value)) === 'budget') : undefined
  if (!pair) return apply(text, [{start: fenceLine, end: fenceLine, text: `budget: ${flow(wanted)}${eol}`}])
  return apply(text, budgetSplices(text, pair, wanted, valueStart, eol))
}

/** The splices that set each wanted dimension in an existing `budget:` value. */
function budgetSplices(text: string, pair: Pair, wanted: Array<[keyof Budget, number]>, at: number, eol: string): Splice[] {
  const value = pair.value as Node | null
  const range = value?.range
  if (!value || !range) {
    // `budget:` with nothing after it: the value goes right after the colon.
    const colon = text.indexOf(':', at + (pair.key as Node).range![1]) + 1
    return [{start: colon, end: colon, text: ` ${flow(wanted)}`}]
  }
  if (!isMap(value)) {
    // A bare count (`budget: 20M`) is tokens: kept unless replaced, beside the new dimensions.
    const old = readBudget(isScalar(value) ? value.value : undefined)
    const merged = new Map<keyof Budget, number | string>('budget' in old ? (Object.entries(old.budget) as Array<[keyof Budget, number]>) : [])
    if (isScalar(value) && parseTokenCount(value.value) !== undefined) merged.set('tokens', text.slice(at + range[0], at + range[1]))
    for (const [key, amount] of wanted) merged.set(key, amount)
    const only = merged.size === 1 && merged.has('tokens')
    return [{start: at + range[0], end: at + range[1], text: only ? valueText('tokens', merged.get('tokens')!) : flow([...merged])}]
  }
  const splices: Splice[] = []
  const items = value.items.filter(isPair)
  const flowMap = value.flow === true
  for (const [key, amount] of wanted) {
    const item = items.find((entry) => isScalar(entry.key) && dimension(String(entry.key.value)) === key)
    const itemRange = (item?.value as Node | null | undefined)?.range
    if (item && itemRange) splices.push({start: at + itemRange[0], end: at + itemRange[1], text: valueText(key, amount)})
    else if (flowMap) {
      // Before the closing `}`, after the last item.
      const close = text.lastIndexOf('}', at + range[1])
      splices.push({start: close, end: close, text: `${items.length > 0 ? ', ' : ''}${key}: ${valueText(key, amount)}`})
    } else {
      const last = items.at(-1)
      const lastEnd = at + ((last?.value as Node | null | undefined)?.range?.[1] ?? (last?.key as Node).range![1])
      const first = at + (items[0]!.key as Node).range![0]
      const indent = first - (text.lastIndexOf('\n', first - 1) + 1)
      splices.push({start: lastEnd, end: lastEnd, text: `${eol}${' '.repeat(indent)}${key}: ${valueText(key, amount)}`})
    }
  }
  return splices
}

function dimension(key: string): keyof Budget | undefined {
  const normal = normalizeKey(key)
  return normal === 'tokens' ? 'tokens' : normal === 'usd' || normal === 'dollars' || normal === 'cost' ? 'usd' : undefined
}

/** `{tokens: 30M, usd: 60}`. */
function flow(entries: Array<[keyof Budget, number | string]>): string {
  return `{${entries.map(([key, amount]) => `${key}: ${valueText(key, amount)}`).join(', ')}}`
}

/** A count of tokens as a person writes it (`30M`, `1.5k`; exact), dollars as a number; text as it was written. */
function valueText(key: keyof Budget, amount: number | string): string {
  if (typeof amount === 'string') return amount
  if (key === 'usd') return String(amount)
  for (const [size, unit] of [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k']
  ] as const) {
    const short = Number((amount / size).toFixed(3))
    if (short >= 1 && short < 1000 && Math.round(short * size) === amount) return `${short}${unit}`
  }
  return String(amount)
}

/** The splices applied, as one edit of the range they span. */
function apply(text: string, splices: Splice[]): SectionEdit {
  const sorted = [...splices].sort((a, b) => b.start - a.start)
  let next = text
  for (const splice of sorted) next = next.slice(0, splice.start) + splice.text + next.slice(splice.end)
  const start = Math.min(...splices.map((splice) => splice.start))
  const end = Math.max(...splices.map((splice) => splice.end))
  return {text: next, start, end, length: end - start + next.length - text.length}
}
