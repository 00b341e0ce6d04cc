import {createHash} from 'node:crypto'
import {promptsKey, sectionDigests} from './section-digests.js'

/**
 * A digest of everything in a plan that defines its agents: the whole text
 * except the sections mdplan writes, taken from the per-section digests in
 * order (one scan of the lines serves both; pass them when you have them).
 * Cheap (no parse), so a run can tell after every save whether a person
 * edited the agents (their prompts, dependencies, new agents) and only then
 * re-parse.
 */
export function definitionDigest(text: string, sections: ReadonlyMap<string, string> = sectionDigests(text)): string {
  const hash = createHash('sha1')
  // The `**Prompts:**` entry repeats lines of the sections already hashed (and may sit in one mdplan owns).
  for (const [key, digest] of sections) if (key !== promptsKey) hash.update(key).update('\0').update(digest).update('\n')
  return hash.digest('hex')
}
