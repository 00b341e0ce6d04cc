import {chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli} from '../../helpers/run-cli.js'

const hostile = '$(touch PWNED) `touch PWNED`; touch PWNED'

function plan(front: string, runner: string): string {
  return ['---', front, `runner: ${JSON.stringify(runner)}`, '---', '', '# Parallel Plan: named', '', '## Agents', '', '### A: a', '- **depends_on**: []', '- **prompt**: |', `    ${hostile}`, ''].join('\n')
}

/** A program of the plan's own that takes its prompt file as data: it copies it and succeeds. */
function myAgent(root: string): void {
  mkdirSync(join(root, 'bin'))
  writeFileSync(join(root, 'bin', 'my-agent'), '#!/bin/sh\n[ "$1" = --task ] || exit 3\ncat "$2" > got.txt\necho "RESULT: SUCCESS"\n')
  chmodSync(join(root, 'bin', 'my-agent'), 0o755)
}

describe('template_data_programs: a plan names the programs that take prompt text as data', () => {
  it('validate shows the names at file:line:col every time, and the named program runs with the prompt as data', async () => {
    await isolateGitConfig()
    const text = plan('template_data_programs: [./bin/my-agent]', './bin/my-agent --task {prompt_file}')
    const repo = await tempRepo({'plan.md': text})
    myAgent(repo.root)
    for (let time = 0; time < 2; time++) {
      const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
      expect(validate.exitCode).toBe(0)
      expect(validate.stdout).toMatch(/^plan\.md:2:1: info: template_data_programs: the plan says `\.\/bin\/my-agent` takes prompt text as data, so a runner template may pass it placeholders; mdplan does not check what it does with them \[template-data-programs\]$/m)
    }
    const run = await runCli(['run', 'plan.md', '-q'], {cwd: repo.root})
    expect(run.exitCode, run.all).toBe(0)
    expect((await readTable(join(repo.root, 'plan.md'))).rows.A!.status).toBe('completed')
    expect(await repo.read('got.txt')).toContain(hostile)
    expect(existsSync(join(repo.root, 'PWNED'))).toBe(false)
    await repo.cleanup()
  }, 60_000)

  it('without the name the same template is refused, with the fix; a --runner template is covered by the names too', async () => {
    await isolateGitConfig()
    const unnamed = plan('max_attempts: 1', './bin/my-agent --task {prompt_file}')
    const repo = await tempRepo({'plan.md': unnamed})
    myAgent(repo.root)
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain("`./bin/my-agent` gets `{prompt_file}` and is not a program mdplan knows takes it as data")
    expect(validate.stdout).toContain('name it in front matter `template_data_programs: [./bin/my-agent]`')
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(existsSync(join(repo.root, 'got.txt'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(unnamed)
    // Named in front matter, a --runner template may pass the prompt to it as well.
    const named = plan('template_data_programs: [bin/my-agent]', 'claude')
    await repo.write('plan.md', named)
    const flagged = await runCli(['run', 'plan.md', '-q', '--runner', 'timeout 30 ./bin/my-agent --task {prompt_file}'], {cwd: repo.root})
    expect(flagged.exitCode, flagged.all).toBe(0)
    expect(await repo.read('got.txt')).toContain(hostile)
    await repo.cleanup()
  }, 60_000)

  it.each([['3'], ['[]'], ['["a b"]'], ['{x: 1}']])('template_data_programs: %s is an invalid setting at its line', async (value) => {
    const repo = await tempRepo({'plan.md': plan(`template_data_programs: ${value}`, 'printf %s {prompt}')})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toMatch(/^plan\.md:2:1: front matter `template_data_programs` must be a list of programs, as the runner template writes them .*\[invalid-setting\]$/m)
    await repo.cleanup()
  })
})
