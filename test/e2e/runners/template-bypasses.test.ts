import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commandRunner} from '../../../src/runners/builtin-runners.js'
import {templateProblem} from '../../../src/runners/template-safety/template-problem.js'
import {splitTemplate} from '../../../src/runners/template-safety/split-template.js'
import {request, tempDir} from '../../helpers/runner-support.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli} from '../../helpers/run-cli.js'

// The red team's templates (redteam/template-injection.sh): each ran its prompt
// as code while validate passed, because the rule refused only the programs on a
// list of interpreters. Each prompt is what makes that program run it.
const bypasses: Array<[string, string, (marker: string) => string]> = [
  ['rbash', 'rbash -c {prompt}', (m) => `touch ${m}`],
  ['tmux', 'tmux -L mdplan-bypass new-session -d {prompt}', (m) => `touch ${m}`],
  ['sg', 'sg root {prompt}', (m) => `touch ${m}`],
  ['npx', 'npx --yes -c {prompt}', (m) => `touch ${m}`],
  ['make', 'make -f /dev/null --eval={prompt}', (m) => `$(shell touch ${m})`],
  ['gdb', 'gdb -q -batch -ex {prompt}', (m) => `shell touch ${m}`],
  ['vim', 'vim -u NONE -es -c {prompt} -c qa!', (m) => `!touch ${m}`],
  ['git', 'git -c {prompt} status', (m) => `core.fsmonitor=touch ${m}; false`],
  ['sg in a script', `sh -c 'sg root {prompt}'`, (m) => `touch ${m}`]
]

function templatePlan(template: string, prompt: string): string {
  const runner = JSON.stringify(template)
  return ['---', `runner: ${runner}`, '---', '', '# Parallel Plan: bypass', '', '## Agents', '', '### A: a', '- **depends_on**: []', '- **prompt**: |', `    ${prompt}`, '', '## Execution State', '', '| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|', '| A | pending | — | — | |', ''].join('\n')
}

describe('the red team\'s template bypasses are refused', () => {
  it.each(bypasses)('%s: validate and run exit 2 at file:line:col, nothing launched, the plan byte-identical', async (_, template, prompt) => {
    await isolateGitConfig()
    const dir = tempDir()
    const marker = join(dir, 'PWNED')
    const plan = templatePlan(template, prompt(marker))
    const repo = await tempRepo({'plan.md': plan})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toMatch(/^plan\.md:2:1: the runner template .* of agent A cannot run: .*name it in front matter `template_data_programs: \[.+\]`.*; if the plan truly means it, add allow_unsafe_template: true beside its runner \[unsafe-runner-template\]$/m)
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/plan\.md:2:1: .*\[unsafe-runner-template\]$/m)
    // Nothing launched: no marker, no log, no .mdplan state; the file as it was.
    expect(existsSync(marker)).toBe(false)
    expect(readdirSync(repo.root).sort()).toEqual(['.git', 'plan.md'])
    expect(await repo.read('plan.md')).toBe(plan)
    await repo.cleanup()
  }, 60_000)

  it.each(bypasses)('%s: the runner itself refuses it (an attempt that still meets it runs nothing)', async (_, template, prompt) => {
    const dir = tempDir()
    const marker = join(dir, 'PWNED')
    const result = await commandRunner(template).run(request(dir, {prompt: prompt(marker), timeoutMs: 10_000}))
    expect(result.ok).toBe(false)
    expect(result.reason).toMatch(/^unsafe runner template: /)
    expect(existsSync(marker)).toBe(false)
  })

  it.each([
    [`sh -c 'sg root "$1"' sh {prompt}`, /`sg` gets `\$1`/],
    [`bash -c 'git -c "$MDPLAN_PROMPT" status'`, /`git` gets/],
    [`sh -c 'timeout 5 ssh-agent "$1"' sh {prompt}`, /`ssh-agent` gets/],
    [`sh -c 'printf %s "$1" | tmux load-buffer -' sh {prompt}`, /`tmux` gets prompt text on its stdin/],
    [`sh -c 'printf %s "$1" | sed e' sh {prompt}`, /`sed` reads prompt text on its stdin with a script other than a plain/],
    [`sh -c 'printf %s "$1" | tee "$1"' sh {prompt}`, /`tee` takes prompt text only on its stdin/],
    ['env X={prompt} my-agent', /whole argument/],
    ['timeout {prompt} printf x', /`timeout` reads `\{prompt\}` as one of its own options or operands/],
    ['python3 -c "import sys" {prompt}', /`python` runs `import sys` as code/],
    ['sh ./agent.sh {prompt}', /name it in front matter `template_data_programs: \[\.\/agent\.sh\]`/],
    ['claude -p {prompt}', /put it after `--`/],
    ['opencode run {prompt}', /put it after `--`/],
    // A relative path is the plan's own file, whatever it is called.
    ['./printf %s {prompt}', /`\.\/printf` gets `\{prompt\}` and is not a program mdplan knows/],
    ['./timeout 5 printf {prompt}', /`\.\/timeout` gets/]
  ])('refuses %s: a program mdplan does not know takes it as data, or a place that is not data', (template, message) => {
    expect(templateProblem(splitTemplate(template))).toMatch(message)
  })

  it.each([
    ['printf %s {prompt}', []],
    ['true {prompt}', []],
    ['cat {prompt_file}', []],
    ['claude -p --model sonnet -- {prompt}', []],
    ['opencode run --format json -- {prompt}', []],
    ['gemini --prompt={prompt}', []],
    [`sh -c "echo RESULT: SUCCESS"`, []],
    [`bash -o pipefail -c 'claude -p -- {prompt} | tee out.log'`, []],
    [`sh -c 'printf %s "$1" | sed "s/a/b/g" | sort | cat' sh {prompt}`, []],
    ['my-agent --task {prompt_file}', ['my-agent']],
    ['timeout 60 ./bin/my-agent --prompt={prompt}', ['bin/my-agent']],
    [`sh -c 'my-agent "$1"' sh {prompt}`, ['my-agent']],
    ['sh ./agent.sh {prompt}', ['./agent.sh']],
    ['python3 agent.py {agent} {prompt}', ['agent.py']]
  ] as Array<[string, string[]]>)('accepts %s (named: %j)', (template, named) => {
    expect(templateProblem(splitTemplate(template), named)).toBeUndefined()
  })
})
