import {createHash} from 'node:crypto'

/**
 * A Job's name for an attempt's key: a DNS-1123 label (lowercase letters,
 * digits and `-`, at most 63 characters). Deterministic, so a second create
 * for the same key is a 409 for the same Job; a key that lowercasing or
 * shortening would change gets a digest of itself, so two keys (`A`, `a`)
 * never share a name.
 */
export function kubernetesName(key: string): string {
  const plain = key.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-+|-+$/g, '')
  if (plain === key && plain.length <= 63) return plain
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 8)
  return `${plain.slice(0, 54).replace(/-+$/, '')}-${digest}`
}

/** A label value (at most 63 of `[A-Za-z0-9_.-]`, alphanumeric at both ends). */
export function labelValue(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '') || 'x'
}
