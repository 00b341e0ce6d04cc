import type {Plan} from '../../src/plan/types.js'

/**
 * A stable, readable projection of a Plan for golden files: spans become
 * `line:col-line:col` strings, the raw text is left out (offsets are checked
 * separately against it).
 */
export function projectPlan(plan: Plan): unknown {
  const {text: _text, ...rest} = plan
  return JSON.parse(
    JSON.stringify(rest, (_key, value: unknown) => {
      if (isSpan(value)) return `${value.start.line}:${value.start.column}-${value.end.line}:${value.end.column}`
      if (isPoint(value)) return `${value.line}:${value.column}`
      return value
    })
  )
}

/** Every span in the plan, with where it was found, for offset checks. */
export function allSpans(value: unknown, file: string, path = '$', out: Array<{path: string; file: string; span: {start: P; end: P}}> = []): typeof out {
  if (isSpan(value)) out.push({path, file, span: value})
  else if (Array.isArray(value)) value.forEach((item, index) => allSpans(item, file, `${path}[${index}]`, out))
  else if (value && typeof value === 'object') {
    // A prompt from the prompts file carries its own `file`: its spans index that file.
    const own = 'file' in value && typeof value.file === 'string' ? value.file : file
    for (const [key, item] of Object.entries(value)) if (key !== 'text') allSpans(item, own, `${path}.${key}`, out)
  }
  return out
}

interface P {
  line: number
  column: number
  offset: number
}

function isPoint(value: unknown): value is P {
  return typeof value === 'object' && value !== null && 'line' in value && 'column' in value && 'offset' in value
}

function isSpan(value: unknown): value is {start: P; end: P} {
  return typeof value === 'object' && value !== null && 'start' in value && 'end' in value && isPoint((value as {start: unknown}).start)
}
