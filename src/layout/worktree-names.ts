import {createHash} from 'node:crypto'
import {realpathSync} from 'node:fs'
import {basename, dirname, extname, isAbsolute, join, relative, resolve, sep} from 'node:path'

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

/**
 * A plan's key among the plans of one repository (worktrees, branches, job
 * names; with the plan's own folder as `root`, its log folder there, and under
 * the folder a run started in, where older versions kept logs and process
 * registries), from its path below `root`: a plan at the
 * root keeps its file's slug (`add-auth.md` → `add-auth`, the name older
 * versions gave every plan), a plan in a folder joins the folders with `--`
 * (`x/plan.md` → `x--plan`), so two plans of the same name in two folders never
 * share one. `--` is kept for that: a run of dashes in a name reads as one.
 *
 * A path the key cannot spell as it is (capitals, spaces, punctuation, a run
 * of dashes, another extension than `.md`) gets a digest of that path too
 * (`Plan.md` → `plan---3f9c1a2b`, `a b.md` → `a-b---…`): `Plan.md` and
 * `plan.md`, `a b.md` and `a-b.md` would otherwise share one key, and one's
 * run could end the other's agents. A key that spells its path never holds
 * `---` (a name's dashes never border the folders' `--`), so it can never be
 * a digested key, and a path that spells itself keeps the key it always had.
 * Without `root` (or outside it), the file's own slug, digested against its
 * absolute path when it does not spell itself.
 */
export function planSlug(planFile: string, root?: string): string {
  const stem = basename(planFile, extname(planFile))
  const rel = root === undefined ? '' : relative(real(root), join(real(dirname(resolve(root, planFile))), basename(planFile)))
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
  const folders = inside ? rel.split(sep).slice(0, -1) : []
  const own = slugOf(stem)
  const readable =
    folders.length === 0
      ? refSafe(own.includes('--') ? collapse(own) : own) || 'plan'
      : refSafe([...folders.map((folder) => collapse(slugOf(folder)) || 'dir'), collapse(own) || 'plan'].join('--'))
  const names = [...folders, stem]
  if (extname(planFile) === '.md' && names.every(spellsItself) && readable === names.join('--')) return readable
  const path = inside ? rel.split(sep).join('/') : join(real(dirname(resolve(planFile))), basename(planFile))
  return `${readable}---${createHash('sha256').update(path).digest('hex').slice(0, 8)}`
}

/** A path component that is its own slug: lowercase `a-z0-9._-`, no `--`, nothing stripped at its ends. */
function spellsItself(component: string): boolean {
  return slugOf(component) === component && !component.includes('--')
}

/** The path with symlinks resolved (git names the root that way), or as given when it does not exist. */
function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function slugOf(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '')
}

function collapse(slug: string): string {
  return slug.replace(/-{2,}/g, '-')
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
