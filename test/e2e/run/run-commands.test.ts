import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {runCommands} from '../../../src/run/run-commands.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {tempDir} from '../../helpers/runner-support.js'

/** The pre-verification blocks of a plan whose section holds `blocks`, each a fenced block. */
function blocks(...scripts: string[]) {
  const text = ['# Plan', '', '## Agents', '', '### A: a', '- **prompt**: |', '    x', '', '## Pre-Execution Verification', '']
  for (const script of scripts) text.push('```bash', script, '```', '')
  return parsePlan(text.join('\n'), 'plan.md').preVerification
}

async function run(...scripts: string[]) {
  const dir = tempDir('mdplan-commands-')
  const logFile = join(dir, 'logs', 'pre.log')
  const result = await runCommands(blocks(...scripts), {cwd: dir, logFile})
  return {dir, result, log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}
}

describe('runCommands', () => {
  it('fails on a failing first line even when the last line passes', async () => {
    const {dir, result, log} = await run('touch first\nnot-a-command-mdplan --version\ntouch third\necho fine')
    expect(result.ok).toBe(false)
    // The fence is on plan line 11, so the block's line 2 is plan line 13.
    expect(result.failed).toEqual({line: 2, planLine: 13, text: 'not-a-command-mdplan --version'})
    expect(result.reason).toMatch(/^line 13 \(line 2 of the block\): `not-a-command-mdplan --version` failed \(exit 127\): .*not found/)
    expect(existsSync(join(dir, 'first'))).toBe(true)
    expect(existsSync(join(dir, 'third'))).toBe(false)
    expect(log).toContain('mdplan: line 2 of this block failed (exit 127)')
    // The shell's own message counts the block's lines too.
    expect(log).toMatch(/line 2: not-a-command-mdplan: command not found/)
    expect(log).toContain('mdplan: line 13 (line 2 of the block)')
  })

  it('fails on a failing pipeline head, as `pnpm test 2>&1 | tail -5` would', async () => {
    const {dir, result} = await run('echo start\nfalse | tail -5\ntouch after')
    expect(result.ok).toBe(false)
    expect(result.failed).toEqual({line: 2, planLine: 13, text: 'false | tail -5'})
    expect(existsSync(join(dir, 'after'))).toBe(false)
  })

  it('passes a block whose every line passes, multi-line constructs included', async () => {
    const script = [
      'if [ -d . ]; then',
      '  echo in-if',
      'fi',
      'for x in 1 2; do echo "$x" | tail -1; done',
      'echo one \\',
      '  two > cont.txt',
      'cat <<EOF > here.txt',
      'heredoc $((1 + 1))',
      'EOF',
      'grep -q nothing-here cont.txt || echo "a checked failure is fine"',
      'f() { return 0; }; f'
    ].join('\n')
    const {dir, result} = await run(script)
    expect(result).toEqual({ok: true})
    expect(readFileSync(join(dir, 'cont.txt'), 'utf8')).toBe('one two\n')
    expect(readFileSync(join(dir, 'here.txt'), 'utf8')).toBe('heredoc 2\n')
  })

  it('names the block line of a failure inside a loop, a subshell or a function', async () => {
    const {result} = await run('echo ok', 'f() {\n  false\n}\necho a\n(f)\necho never')
    expect(result.failed).toEqual({line: 5, planLine: 20, text: '(f)'})
  })

  it('stops at the first failing block', async () => {
    const {dir, result} = await run('exit 4', 'touch second')
    expect(result.ok).toBe(false)
    expect(result.reason).toBe('the block at line 11 failed (exit 4)')
    expect(existsSync(join(dir, 'second'))).toBe(false)
  })

  it('reports a build command by its own line', async () => {
    const dir = tempDir('mdplan-commands-')
    const command = {lang: 'sh', script: 'true && false', position: {start: {line: 2, column: 1, offset: 0}, end: {line: 2, column: 1, offset: 0}}}
    const result = await runCommands([command], {cwd: dir, logFile: join(dir, 'build.log'), phase: 'build'})
    expect(result.reason).toBe('line 1: `true && false` failed (exit 1)')
  })
})

describe('verification in a run', () => {
  it('launches nothing when a pre-verification line fails before a passing last line', async () => {
    await isolateGitConfig()
    const plan = shellPlan({A: {script: 'touch a-ran'}}, {pre: 'missing-tool-mdplan build\necho "all checks done"'})
    const repo = await tempRepo({'plan.md': plan})
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(1)
    expect(result.all).toContain('`missing-tool-mdplan build` failed (exit 127)')
    expect(existsSync(join(repo.root, 'a-ran'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(plan)
    await repo.cleanup()
  })

  it('fails the integration tests on a failing pipeline whose last line passes', async () => {
    await isolateGitConfig()
    const plan = shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}}, {integration: 'echo "build failed" >&2; false 2>&1 | tail -5\necho done'})
    const repo = await tempRepo({'plan.md': plan})
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(1)
    expect(result.all).toContain('integration failed')
    expect(await repo.read('plan.md')).toMatch(/Integration: fail \(1 attempt\)/)
    await repo.cleanup()
  })
})
