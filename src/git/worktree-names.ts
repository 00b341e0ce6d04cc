import {basename, extname, join} from 'node:path'

/** Where an agent's worktree lives and which branch it is on. */
export interface WorktreeNames {
  /** `mdplan/<plan-slug>/<agent>`. */
  branch: string
  /** `<root>/.mdplan/worktrees/<plan-slug>/<agent>`. */
  path: string
  /** The folder that holds all of this plan's worktrees. */
  planDir: string
  /** The agent's folder and branch component (the agent ID, made safe for a ref name). */
  name: string
}

/** A plan's slug from its file: `plans/Add Auth.md` → `add-auth`. */
export function planSlug(planFile: string): string {
  const stem = basename(planFile, extname(planFile))
  const slug = stem.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')
  return refSafe(slug.replace(/^[-.]+|[-.]+$/g, '')) || 'plan'
}

/** Names for one agent's worktree (pure: no git, no file system). */
export function worktreeNames(root: string, slug: string, agent: string): WorktreeNames {
  const name = refSafe(agent)
  const planDir = join(root, '.mdplan', 'worktrees', slug)
  return {branch: `mdplan/${slug}/${name}`, path: join(planDir, name), planDir, name}
}

// Agent IDs are `[A-Za-z][A-Za-z0-9_.-]*`: only `..`, a trailing `.` or `.lock` can make a bad ref.
function refSafe(text: string): string {
  return text.replaceAll('..', '-').replace(/\.lock$/i, '-lock').replace(/\.$/, '-')
}
