import {mkdirSync, mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Io} from '../../../src/cli/io.js'
import {main} from '../../../src/cli/main.js'
import {main as readMain} from '../../../src/cli/read-main.js'
import {quickStatus} from '../../../src/cli/quick-status.js'
import {forEachShapes} from '../../helpers/real-plans.js'
import {sized} from '../../helpers/quick.js'
import {root} from '../../helpers/run-cli.js'

// `mdplan status <plan> [--json]` runs without commander (src/cli/quick-status.ts): it must
// print and exit exactly as commander's command does. `status -- <plan>` means the same to
// commander and is not a form quickStatus takes, so it is the reference.

async function capture(run: (io: Io) => Promise<number>, cwd: string): Promise<{code: number; stdout: string; stderr: string}> {
  let stdout = ''
  let stderr = ''
  const io: Io = {stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), isTTY: false, env: {NO_COLOR: '1'}, cwd}
  const code = await run(io)
  return {code, stdout, stderr}
}

/** Our demo plans, the validate fixtures, and every plan of `dir` (hand-written plans, or ours in their shapes). */
function plans(dir: string): string[] {
  const files = [join(root, 'plans', 'demo.md'), join(root, 'plans', 'nested-demo.md')]
  for (const name of readdirSync(join(root, 'fixtures', 'validate'))) files.push(join(root, 'fixtures', 'validate', name, 'plan.md'))
  for (const name of readdirSync(dir, {recursive: true, encoding: 'utf8'})) if (name.endsWith('.md')) files.push(join(dir, name))
  return files
}

describe('status without commander', () => {
  it('takes only `status <plan>` and `status <plan> --json`, in either order', () => {
    const io = {stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: tmpdir()}
    for (const argv of [['status'], ['status', '--help'], ['status', 'a.md', 'b.md'], ['status', '--', 'a.md'], ['status', 'a.md', '--jsn'], ['status', '-x', 'a.md'], ['status', '--json', '--json'], ['status', ''], ['--json', 'status', 'a.md'], ['validate', 'a.md']]) {
      expect(quickStatus(argv, io), argv.join(' ')).toBeUndefined()
    }
  })
})

forEachShapes((shapes) => {
  it('prints and exits as commander does, on every plan we have and on files that are no plan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-quick-status-'))
    mkdirSync(join(dir, 'folder.md'))
    writeFileSync(join(dir, 'empty.md'), '')
    writeFileSync(join(dir, 'binary.md'), 'a\0b')
    writeFileSync(join(dir, 'no-agents.md'), '# Parallel Plan: none\n')
    const files = [...plans(shapes.dir), 'missing.md', 'folder.md', 'empty.md', 'binary.md', 'no-agents.md']
    expect(files.length).toBeGreaterThan(20)
    // Each file in each form through both entries and both orders; under MDPLAN_QUICK one of those four per
    // file and form, in turn, so every one is still met across the files.
    type Way = (file: string, flags: string[]) => (io: Io) => Promise<number>
    const ways: Way[] = [main, readMain].flatMap((entry): Way[] => [
      (file, flags) => (io) => entry(['status', file, ...flags], io),
      (file, flags) => (io) => entry(['status', ...flags, file], io)
    ])
    const perFile = sized(ways.length, 1)
    let turn = 0
    for (const file of files) {
      for (const json of [false, true]) {
        const flags = json ? ['--json'] : []
        const reference = await capture((io) => main(['status', ...flags, '--', file], io), dir)
        for (let k = 0; k < perFile; k++) {
          const way = ways[turn++ % ways.length]!
          expect(await capture((io) => way(file, flags)(io), dir), `${file} ${flags.join(' ')}`).toEqual(reference)
        }
      }
    }
    // A bound for a loaded machine (every plan we have, in each form), not a speed target.
  }, 120_000)
})
