import {execFileSync} from 'node:child_process'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
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

  it('no function in src/ over 80 lines (scripts/long-functions.js), no file over 300', () => {
    let output = ''
    try {
      output = execFileSync(process.execPath, [join(root, 'scripts', 'long-functions.js'), 'src'], {cwd: root, encoding: 'utf8'})
    } catch (error) {
      output = String((error as {stdout?: string}).stdout ?? error) || 'long-functions.js failed'
    }
    expect(output.trim(), output).toBe('')
    const long = sources(join(root, 'src'))
      .map((file) => ({file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length - 1}))
      .filter(({lines}) => lines > 300)
    expect(long).toEqual([])
  }, 60_000)
})

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : []
  })
}
