import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {root} from '../../helpers/run-cli.js'

/**
 * The house rules of src/ (.dependency-cruiser.cjs): no cycle between files, each folder importing only from the
 * floors below it, each engine folder reached through its registry only. A regression fails `npm test`.
 */
describe('the house rules', () => {
  it('dependency-cruiser finds no cycle, no upward import, no engine reached around its registry', () => {
    const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')
    let output = ''
    let failed = false
    try {
      output = execFileSync(process.execPath, [cli, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {cwd: root, encoding: 'utf8'})
    } catch (error) {
      failed = true
      output = String((error as {stdout?: string}).stdout ?? error)
    }
    expect(output, output).toContain('no dependency violations found')
    expect(failed).toBe(false)
  }, 60_000)
})
