/**
 * An attempt's key: the job's unique name on its host (the ssh job folder,
 * the container's name), `mdplan-<plan-slug>-<agent>-a<N>-<rand>`. A rerun
 * of the same attempt keeps it; a retry gets a new one, so a late result of
 * an old attempt can never pass for a new one's.
 */
export function jobKey(slug: string, agent: string, attempt: number, rand: string): string {
  const safe = (text: string): string => text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+/, '')
  return `mdplan-${safe(slug)}-${safe(agent)}-a${attempt}-${rand}`
}

/** `job: build1 mdplan-…` in Notes → its host and key. */
export function parseJobNote(value: string | undefined): {host: string; key: string} | undefined {
  const match = value === undefined ? null : /^(\S+)\s+(mdplan-[A-Za-z0-9_.-]+)$/.exec(value.trim())
  return match ? {host: match[1]!, key: match[2]!} : undefined
}

/** Keys never need quoting on a remote shell or as a container name; checked before they reach either. */
export function isSafeKey(key: string): boolean {
  return /^mdplan-[A-Za-z0-9_.-]+$/.test(key)
}
