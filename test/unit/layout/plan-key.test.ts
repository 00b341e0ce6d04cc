import {mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {planKey} from '../../../src/layout/plan-key.js'
import {planSlug} from '../../../src/layout/worktree-names.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function linked(): {root: string; link: string; target: string} {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mdplan-plan-key-')))
  dirs.push(root)
  mkdirSync(join(root, 'plans'))
  writeFileSync(join(root, 'plans', 'plan.md'), '')
  symlinkSync('plans/plan.md', join(root, 'plan.md'))
  return {root, link: join(root, 'plan.md'), target: join(root, 'plans', 'plan.md')}
}

describe('planKey', () => {
  it('names a plan reached through a symlink by its target: the link and the target share one key', () => {
    const {root, link, target} = linked()
    expect(planKey(link, root)).toBe('plans--plan')
    expect(planKey(target, root)).toBe('plans--plan')
    // What older runs keyed a run through the link by (src/run/older-job-keys.ts goes back to their jobs).
    expect(planSlug(link, root)).toBe('plan')
  })

  it('is planSlug for a plan that is no link, and for a link a save replaced with a file of its own', () => {
    const {root, link} = linked()
    unlinkSync(link)
    writeFileSync(link, '')
    expect(planKey(link, root)).toBe(planSlug(link, root))
    expect(planKey(link, root)).toBe('plan')
    expect(planKey(join(root, 'missing.md'), root)).toBe('missing')
  })
})
