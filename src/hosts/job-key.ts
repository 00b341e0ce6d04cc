import {createHash} from 'node:crypto'
import {hostname} from 'node:os'

/**
 * An attempt's key: the job's unique name on its host (the ssh job folder,
 * the container's name, the Slurm job name, the Kubernetes Job),
 * `mdplan<N>-<plan slug>-<agent>-a<attempt>-<nonce>`, N the slug's length.
 * A rerun of the same attempt keeps it; a retry gets a new one, so a late
 * result of an old attempt can never pass for a new one's.
 *
 * The length makes a key say whose it is: a slug and an agent ID may both
 * hold `-`, so in the older `mdplan-<slug>-…` plan `a`'s prefix `mdplan-a-`
 * also began plan `a-b`'s keys (and `x`'s began `x--plan`'s), and one plan's
 * sweep could cancel another's running jobs. `mdplan1-a-` begins plan `a`'s
 * keys only: `mdplan3-a-b-` is `a-b`'s.
 */
export function jobKey(slug: string, agent: string, attempt: number, rand: string): string {
  return `${jobKeyPrefix(slug)}${safe(agent)}-a${attempt}-${rand}`
}

/**
 * The names a plan's jobs live under on a host that other repositories share:
 * its slug, then a digest of this machine's name and the repository's path.
 * Two clones (or two CI runners with the same checkout path) each with a
 * `plan.md` send keys that never begin alike, so one's sweep never ends the
 * other's jobs.
 */
export function jobSpace(slug: string, root: string): string {
  return `${slug}-${createHash('sha256').update(`${hostname()}\0${root}`).digest('hex').slice(0, 8)}`
}

/** What every key of the plan with this slug begins with, and no other plan's key does. */
export function jobKeyPrefix(slug: string): string {
  const plan = safe(slug)
  return `mdplan${plan.length}-${plan}-`
}

/** A key of the current form, back into its parts; undefined for anything else (an older key among them). */
export function parseJobKey(key: string): {slug: string; agent: string; attempt: number; nonce: string} | undefined {
  const head = /^mdplan(\d+)-/.exec(key)
  if (!head || !isSafeKey(key)) return undefined
  const start = head[0].length
  const slug = key.slice(start, start + Number(head[1]))
  if (slug.length !== Number(head[1]) || key[start + slug.length] !== '-') return undefined
  // The nonce has no `-`: the last two components are the attempt and the nonce, the rest is the agent.
  const tail = /^(.+)-a(\d+)-([0-9a-f]+)$/.exec(key.slice(start + slug.length + 1))
  return tail ? {slug, agent: tail[1]!, attempt: Number(tail[2]), nonce: tail[3]!} : undefined
}

/** `job: build1 mdplan…` in Notes → its host and key (keys of the older `mdplan-<slug>-…` form too: a rerun re-attaches to them). */
export function parseJobNote(value: string | undefined): {host: string; key: string} | undefined {
  const match = value === undefined ? null : /^(\S+)\s+(mdplan\d*-[A-Za-z0-9_.-]+)$/.exec(value.trim())
  return match ? {host: match[1]!, key: match[2]!} : undefined
}

/** Keys never need quoting on a remote shell or as a container name; checked before they reach either. */
export function isSafeKey(key: string): boolean {
  return /^mdplan\d*-[A-Za-z0-9_.-]+$/.test(key)
}

function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+/, '')
}
