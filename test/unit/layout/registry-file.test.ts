import {describe, expect, it} from 'vitest'
import {legacyRegistryFiles, olderRegistryFile, registryFile} from '../../../src/layout/registry-file.js'

const names = (files: string[]): string[] => files.map((file) => file.replace('/r/', ''))

describe('where older versions kept a plan’s process registry', () => {
  it('`Plan.md`: the key before the digest (`plan`, what dedfb2e wrote) and with it, each with its moved-aside file', () => {
    const files = names(legacyRegistryFiles('/r/Plan.md', '/r', '/r'))
    expect(files).toContain('.mdplan/run/plan.agents')
    expect(files).toContain('.mdplan/run/plan.older.agents')
    expect(files.some((file) => /^\.mdplan\/run\/plan---[0-9a-f]{8}\.agents$/.test(file))).toBe(true)
  })

  it('`docs/plan.md`: from the run’s folder (outside it: the file’s own key, as older versions had it), the plan’s own and each one above it up to the root', () => {
    const files = names(legacyRegistryFiles('/r/docs/plan.md', '/r/sub', '/r'))
    expect(files).toEqual(expect.arrayContaining(['sub/.mdplan/run/plan.agents', 'docs/.mdplan/run/plan.agents', '.mdplan/run/docs--plan.agents']))
    expect(files.every((file) => !file.startsWith('/'))).toBe(true)
  })

  it('`plan.md.md` looks for `plan.md.agents`, which is `plan.md`’s registry today: the names meet', () => {
    // They must: an older release's run of plan.md.md wrote there. So what a current run recorded in such a file (after
    // its owner line) is never touched from a legacy lookup, and the rest is judged process by process
    // (registry-legacy.test.ts); moved aside, it is `.older.agents`.
    expect(legacyRegistryFiles('/r/plan.md.md', '/r', '/r')).toContain(registryFile('/r/plan.md'))
    expect(olderRegistryFile(registryFile('/r/plan.md'))).toBe('/r/.mdplan/run/plan.md.older.agents')
  })
})
