import type {HostSpec} from './host-spec.js'

/** How one front-matter field of a host is read: its value for the spec, or why it is wrong (after `` `key` ``). */
export type FieldReader = (value: unknown) => {value: unknown} | {problem: string}

/** One field a host type takes: the spec's property it sets (none: `spec.own[<its name>]`), and how it is read. */
export interface HostField {
  to?: keyof HostSpec
  read: FieldReader
}

/** A non-empty string, trimmed. */
export const text: FieldReader = (value) => (typeof value === 'string' && value.trim() !== '' ? {value: value.trim()} : {problem: 'must be a non-empty string'})

/** A whole number of at least 1. */
export const wholeNumber: FieldReader = (value) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 ? {value} : {problem: 'must be a whole number of at least 1'}

/** A number above 0. */
export const positiveNumber: FieldReader = (value) => (typeof value === 'number' && value > 0 ? {value} : {problem: 'must be a number above 0'})

/** One of a few words. */
export function oneOf(...words: string[]): FieldReader {
  const said = words.map((word) => `\`${word}\``).join(' or ')
  return (value) => (typeof value === 'string' && words.includes(value.trim()) ? {value: value.trim()} : {problem: `must be ${said}`})
}

/** A string a pattern accepts (`problem`: what is wrong otherwise, such as `must be a Kubernetes name`). */
export function matching(pattern: RegExp, problem: string): FieldReader {
  return (value) => {
    const read = text(value)
    return 'value' in read && pattern.test(String(read.value)) ? read : {problem}
  }
}

/** A list (YAML, or words in a string) whose every item `each` accepts (`what` says what it must list). */
export function list(each: (item: unknown) => boolean, what: string): FieldReader {
  return (value) => {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : undefined
    return items && items.every(each) ? {value: items} : {problem: `must list ${what}`}
  }
}
