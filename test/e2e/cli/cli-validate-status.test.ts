import {cp, mkdtemp, readFile} from 'node:fs/promises'
import {existsSync, mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'

// These spawn the built CLI (`bin/mdplan.js` runs dist/): the global setup builds it.
const root = fileURLToPath(new URL('../../..', import.meta.url))
const bin = join(root, 'bin', 'mdplan.js')

async function inTemp(fixture: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-validate-'))
  await cp(join(root, 'fixtures', 'validate', fixture), dir, {recursive: true})
  return dir
}

const bad = ['missing file', 'file-not-found', 'not-a-file', 'empty-file', 'binary-file', 'invalid-utf8', 'no-agents-section', 'unterminated-fence', 'malformed-table'] as const

describe('bad input through the real CLI: exit 2, one clear message, no stack trace, file untouched', () => {
  for (const command of ['validate', 'status'] as const) {
    for (const name of bad) {
      it(`${command} ${name}`, async () => {
        const dir = await inTemp(name === 'missing file' ? 'file-not-found' : name)
        const plan = join(dir, 'plan.md')
        const before = existsSync(plan) && statSync(plan).isFile() ? await readFile(plan) : undefined
        const result = await execa(process.execPath, [bin, command, 'plan.md'], {cwd: dir, reject: false, env: {NO_COLOR: '1'}})
        expect(result.exitCode).toBe(2)
        const output = `${result.stdout}\n${result.stderr}`
        expect(output).not.toMatch(/^\s+at /m)
        expect(output).not.toMatch(/Error:/)
        const messages = output.split('\n').filter((line) => /^plan\.md(:\d+:\d+)?: .+ \[[a-z-]+\]$/.test(line))
        expect(messages).toHaveLength(1)
        if (before) expect((await readFile(plan)).equals(before)).toBe(true)
      })
    }
  }

  it('validate on a clean plan exits 0 and says it is valid', async () => {
    const dir = await inTemp('valid')
    const result = await execa(process.execPath, [bin, 'validate', 'plan.md'], {cwd: dir, reject: false})
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('plan.md: 3 agents, valid')
  })

  it('warnings do not fail validate', async () => {
    const dir = await inTemp('unknown-table-row')
    const result = await execa(process.execPath, [bin, 'validate', 'plan.md'], {cwd: dir, reject: false})
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('[unknown-table-row]')
  })

  it('status --json on the demo plan parses as JSON', async () => {
    const result = await execa(process.execPath, [bin, 'status', 'plans/demo.md', '--json'], {cwd: root, reject: false})
    expect(result.exitCode).toBe(0)
    const status = JSON.parse(result.stdout) as {total: number; ready: string[]}
    expect(status.total).toBeGreaterThanOrEqual(5)
    expect(status.ready.length).toBeGreaterThan(0)
  })

  it('status names no build where the plan has none, and shows a recorded one', async () => {
    const plain = await execa(process.execPath, [bin, 'status', 'plans/demo.md'], {cwd: root, reject: false})
    expect(plain.exitCode).toBe(0)
    expect(plain.stdout).toContain('Last updated:')
    expect(plain.stdout).not.toMatch(/^Build:/m)
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-status-build-'))
    const text = readFileSync(join(root, 'plans/demo.md'), 'utf8').trimEnd() + '\n\nStarted: 2026-11-23 10:00:00\nLast updated: 2026-11-23 10:05:00\nBuild: pass\n'
    writeFileSync(join(dir, 'plan.md'), text)
    const built = await execa(process.execPath, [bin, 'status', 'plan.md'], {cwd: dir, reject: false})
    expect(built.stdout).toMatch(/^Build: +pass$/m)
  })
})
