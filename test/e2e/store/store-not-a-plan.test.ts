import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

const bin = path.resolve('bin/mdplan.js')
const notes = '# Notes\n\nJust notes, no agents.\n\n## Ideas\n\n- one\n'

describe('graph and report on a Markdown file that is not a plan', () => {
  it.each([['validate'], ['graph'], ['graph', '--write'], ['report'], ['report', '--json']])('mdplan %s … exits 2 with the no-agents-section line and leaves the file alone', (...command) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-not-a-plan-'))
    const file = path.join(dir, 'notes.md')
    fs.writeFileSync(file, notes)
    const args = [command[0]!, 'notes.md', ...command.slice(1)]
    const run = spawnSync(process.execPath, [bin, ...args], {cwd: dir, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
    expect(run.status).toBe(2)
    // validate lists problems on stdout; graph and report print nothing there, the error on stderr.
    const output = command[0] === 'validate' ? run.stdout : run.stderr
    if (command[0] !== 'validate') expect(run.stdout).toBe('')
    expect(output.split('\n')[0]).toBe('notes.md: no `## Agents` section: a plan lists its agents under `## Agents` as `### <ID>: <name>` headings [no-agents-section]')
    expect(fs.readFileSync(file, 'utf8')).toBe(notes)
    expect(fs.readdirSync(dir)).toEqual(['notes.md'])
  })
})
