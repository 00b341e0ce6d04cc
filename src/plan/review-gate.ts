import type {Agent, Settings} from './types.js'

const yes = new Set(['true', 'yes', 'on'])
const no = new Set(['false', 'no', 'off'])

/** An agent's `review:` value as a boolean (`true`/`false`, `yes`/`no`, `on`/`off`, any case); undefined when it is none of them. */
export function reviewValue(text: string): boolean | undefined {
  const word = text.trim().replace(/^`(.*)`$/, '$1').toLowerCase()
  return yes.has(word) ? true : no.has(word) ? false : undefined
}

/**
 * Whether an agent's work waits for a person's review when it completes (docs/review.md): its own `review:`
 * field when it has one, else the front matter's `review:`, else no.
 */
export function reviewGate(agent: Pick<Agent, 'fields'>, settings: Pick<Settings, 'review'>): boolean {
  const own = agent.fields.review
  return (own === undefined ? undefined : reviewValue(own.value)) ?? settings.review ?? false
}
