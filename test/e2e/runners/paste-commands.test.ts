import {execFileSync} from 'node:child_process'
import {mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {shellWord} from '../../../src/util/shell-word.js'
import {tempDir} from '../../helpers/runner-support.js'
import {runCli} from '../../helpers/run-cli.js'

// A folder name that runs commands if a suggested line is pasted with it bare:
// quotes of both kinds, `$x`, a command substitution, backticks, a newline, unicode.
const hostile = `we'ird "dir" ünï $x \`touch PWNED1\` $(touch PWNED2)\n-x`

/** What `sh` makes of `line` when `mdplan` is a function that prints its arguments, one per line (NUL-safe enough here). */
function pasted(line: string, cwd: string): string[] {
  const out = execFileSync('sh', ['-c', `mdplan() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${line}`], {cwd, encoding: 'utf8'})
  return out.split('\0').slice(0, -1)
}

describe('commands mdplan prints for a person to paste are one shell word per path', () => {
  it.each([['plans/plan.md'], [hostile], ["it's"], ['-plan.md'], ['a b'], ['$HOME'], ['']])('shellWord(%j) is read back as the same path by sh', (path) => {
    const dir = tempDir()
    const [word] = pasted(`mdplan ${shellWord(path)}`, dir)
    expect(word).toBe(path.startsWith('-') ? `./${path}` : path)
    expect(readdirSync(dir)).toEqual([])
  })

  it('leaves a plain path as it was', () => {
    expect(shellWord('plans/auth.md')).toBe('plans/auth.md')
  })

  it('mdplan answer: the next `mdplan run …` it suggests, run through sh -c, names the plan and runs nothing', async () => {
    const root = tempDir()
    const folder = join(root, hostile)
    mkdirSync(folder)
    const plan = [
      '---',
      'runner: shell',
      '---',
      '# Parallel Plan: answers',
      '',
      '## Agents',
      '',
      '### A: ask',
      '- **depends_on**: []',
      '- **prompt**: |',
      `    printf 'RESULT: QUESTION\\nQuestion: Which store?\\nContext: none\\nOptions:\\n1. redis\\n2. postgres\\n'`,
      ''
    ].join('\n')
    writeFileSync(join(folder, 'plan.md'), plan)
    const planArg = `${hostile}/plan.md`
    const run = await runCli(['run', planArg, '-q'], {cwd: root})
    expect(run.exitCode).toBe(1)
    const answer = await runCli(['answer', planArg, 'A', '2'], {cwd: root})
    expect(answer.exitCode).toBe(0)
    const suggested = /The next `(mdplan run [\s\S]*)` resumes A with it\.\n?$/.exec(answer.stdout)
    expect(suggested, answer.stdout).not.toBeNull()
    expect(pasted(suggested![1]!, root)).toEqual(['run', planArg])
    expect(readdirSync(root).filter((name) => name.startsWith('PWNED'))).toEqual([])
  }, 60_000)

  it('mdplan import: the `mdplan run …` it suggests, run through sh -c, names the plan it wrote and runs nothing', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'issues.jsonl'), JSON.stringify({id: 'ISS-1', title: 't'}) + '\n')
    mkdirSync(join(root, hostile))
    const out = `${hostile}/plan.md`
    const result = await runCli(['import', 'issues.jsonl', '--out', out, '--runner', 'claude'], {cwd: root})
    expect(result.exitCode, result.stderr).toBe(0)
    const suggested = /Next: review it, then `(mdplan run [\s\S]*)`\.\n?$/.exec(result.stdout)
    expect(suggested, result.stdout).not.toBeNull()
    expect(pasted(suggested![1]!, root)).toEqual(['run', out])
    expect(readdirSync(root).filter((name) => name.startsWith('PWNED'))).toEqual([])
  }, 60_000)
})
