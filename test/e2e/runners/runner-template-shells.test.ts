import {existsSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commandRunner} from '../../../src/runners/builtin-runners.js'
import {fillTemplate} from '../../../src/runners/command/command.js'
import {templateProblem} from '../../../src/runners/template-safety/template-problem.js'
import {quotePlaceholders} from '../../../src/runners/template-safety/quote-placeholders.js'
import {splitTemplate} from '../../../src/runners/template-safety/split-template.js'
import {templateScripts} from '../../../src/runners/template-safety/template-scripts.js'
import {request, tempDir} from '../../helpers/runner-support.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'

// Every way a prompt could break out: substitutions, quotes of both kinds,
// a statement separator, a newline followed by a command, globs, a variable.
const attack = [
  `fix *.ts now`,
  `$(touch pwned) \`touch pwned\``,
  `'; touch pwned; echo '`,
  `"; touch pwned; echo "`,
  `\\"; touch pwned #`,
  `a\ntouch pwned\n$HOME ? [ab].ts ~ {x,y} !!`,
  `EOF\ntouch pwned\nEOF`,
  ''
].join('\n')

const forms: Array<[string, string]> = [
  ['bare placeholder after timeout', `timeout 60 sh -c 'printf %s {prompt}'`],
  ['double-quoted placeholder after env', `env X=1 sh -c 'printf %s "{prompt}"'`],
  ['single-quoted placeholder after nice', `nice -n 5 sh -c "printf %s '{prompt}'"`],
  ['stdbuf and bash', `stdbuf -oL bash -c 'printf %s {prompt}'`],
  ['bash -o pipefail with a pipeline', `bash -o pipefail -c 'printf %s "{prompt}" | cat'`],
  ['sh -e -c', `sh -e -c 'printf %s {prompt}'`],
  ['clustered -ec after setsid', `setsid -w bash -ec 'printf "%s" "{prompt}"'`],
  ['bash --norc -eo pipefail -c', `bash --norc -eo pipefail -c 'printf %s {prompt} | cat'`],
  ['xargs', `xargs sh -c 'printf %s "{prompt}"'`],
  ['nohup', `nohup sh -c 'printf %s {prompt}'`],
  ['env path to a shell', `/usr/bin/env bash -c 'printf %s {prompt}'`],
  ['placeholder mid-word', `sh -c 'printf %s x{prompt}y' `],
  ['command substitution', `sh -c 'x=$(printf %s {prompt}; printf .); printf %s "\${x%.}"'`],
  ['inside "$(…)"', `sh -c 'printf %s "$(printf %s "{prompt}"; printf .)" | sed "\\$s/\\.\\$//"'`],
  ['positional argument', `sh -c 'printf %s "$1"' sh {prompt}`],
  ['flock -c', `flock /tmp/mdplan-template-test.lock -c 'printf %s {prompt}'`],
  ['beside arithmetic and a string test', `bash -c 'n=$((1 + (2))); [[ -n {prompt} && $n -eq 3 ]] && printf %s {prompt}'`]
]

describe('templates that wrap a shell', () => {
  it.each(forms)('%s: the prompt arrives byte for byte and runs nothing', async (_, template) => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.ts'), '')
    writeFileSync(join(dir, 'b.ts'), '')
    const expected = template.includes('x{prompt}y') ? `x${attack}y` : attack
    const result = await commandRunner(template).run(request(dir, {prompt: attack}))
    expect(result.reason).toBeUndefined()
    expect(result.finalText).toBe(expected)
    expect(readdirSync(dir).filter((name) => name.includes('pwned'))).toEqual([])
  })

  it('a quoted placeholder arrives as one argument, not split or globbed', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.ts'), '')
    writeFileSync(join(dir, 'b.ts'), '')
    for (const template of [`sh -c 'printf "<%s>" "{prompt}"'`, `sh -c "printf '<%s>' '{prompt}'"`, `sh -c 'printf "<%s>" {prompt}'`]) {
      const result = await commandRunner(template).run(request(dir, {prompt: 'fix *.ts now'}))
      expect(result.finalText).toBe('<fix *.ts now>')
    }
  })

  it('a heredoc gets the prompt without quotes around it', async () => {
    const dir = tempDir()
    const result = await commandRunner(`sh -c 'cat <<EOF\n{prompt}\nEOF\n'`).run(request(dir, {prompt: attack}))
    expect(result.finalText).toBe(`${attack}\n`)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })

  it('keeps the smoke-test template working', async () => {
    const dir = tempDir()
    const result = await commandRunner(`sh -c "echo RESULT: SUCCESS"`).run(request(dir))
    expect(result.ok).toBe(true)
    expect(result.finalText).toBe('RESULT: SUCCESS\n')
  })

  it.each([
    ['another language', `python3 -c 'print("{prompt}")'`, /python/],
    ['eval inside the script', `sh -c 'eval {prompt}'`, /runs prompt text as code: `eval`/],
    ['a shell inside the script', `timeout 5 sh -c 'bash -c "echo {prompt}"'`, /runs prompt text as code: `bash` runs/],
    ['a quoted heredoc', `sh -c "cat <<'EOF'\n{prompt}\nEOF"`, /quoted heredoc/],
    ['env -S', `env -S 'sh -c {prompt}'`, /env runs/],
    ['ssh', `ssh host agent {prompt}`, /ssh runs/],
    ['$(( ))', `sh -c 'echo $(( {prompt} + 1 ))'`, /arithmetic/],
    ['(( )) in double quotes', `bash -c 'x="$(( {agent} ))"'`, /arithmetic/],
    ['(( ))', `bash -c '(( {prompt} > 1 ))'`, /arithmetic/],
    ['[[ -eq ]]', `bash -c '[[ {prompt} -eq 1 ]]'`, /arithmetic/],
    ['[[ -lt ]] after the operator', `bash -c '[[ 1 -lt "{prompt}" ]]'`, /arithmetic/],
    ['let', `bash -c 'let x={prompt}'`, /arithmetic/]
  ])('refuses a placeholder that would run as code: %s', async (_, template, message) => {
    const dir = tempDir()
    expect(templateProblem(splitTemplate(template))).toMatch(message)
    const result = await commandRunner(template).run(request(dir, {prompt: '$(touch pwned)'}))
    expect(result.ok).toBe(false)
    expect(result.reason).toMatch(/^unsafe runner template: /)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })

  it('leaves templates without code alone', () => {
    for (const template of ['printf %s {prompt}', `sh -c 'echo hi'`, 'node -e "1" --']) {
      expect(templateProblem(splitTemplate(template))).toBeUndefined()
    }
  })

  it('takes a script file or a program as data once the plan names it (template_data_programs)', () => {
    for (const [template, named] of [['sh ./agent.sh {prompt}', './agent.sh'], ['python3 agent.py {prompt}', 'agent.py'], ['my-agent --task {prompt_file}', 'my-agent']] as const) {
      // Unnamed, mdplan cannot know what the script or program does with the text.
      expect(templateProblem(splitTemplate(template))).toMatch(/template_data_programs/)
      expect(templateProblem(splitTemplate(template), [named])).toBeUndefined()
    }
  })
})

describe('templateScripts', () => {
  it.each([
    [['timeout', '60', 'sh', '-c', 'x'], [4]],
    [['env', 'X=1', 'Y=2', 'bash', '-c', 'x'], [5]],
    [['nice', '-n', '5', 'sh', '-c', 'x'], [5]],
    [['stdbuf', '-oL', '-eL', 'sh', '-c', 'x'], [5]],
    [['bash', '-o', 'pipefail', '-c', 'x'], [4]],
    [['bash', '-O', 'extglob', '-ec', 'x', 'name', 'arg'], [4]],
    [['sh', '-e', '-c', 'x'], [3]],
    [['bash', '-lc', 'x'], [2]],
    [['sh', '-c', '--', 'x'], [3]],
    [['xargs', '-0', '-n1', 'sh', '-c', 'x'], [5]],
    [['time', '-p', 'command', 'setsid', 'nohup', 'dash', '-c', 'x'], [7]],
    [['/bin/busybox', 'sh', '-c', 'x'], [3]],
    [['bash5', '-c', 'x'], [2]],
    [['sh', 'script.sh', '-c', 'x'], []],
    [['sh', '-c', 'x', 'sh', 'y'], [2]],
    [['node', '-c', 'x'], []]
  ])('%j', (argv, scripts) => {
    expect(templateScripts(argv).scripts).toEqual(scripts)
  })
})

describe('quotePlaceholders', () => {
  const names = {prompt: 'MDPLAN_PROMPT', prompt_file: 'MDPLAN_PROMPT_FILE', agent: 'MDPLAN_AGENT', agent_id: 'MDPLAN_AGENT_ID', plan: 'MDPLAN_PLAN'}
  it.each([
    ['a {prompt} b', 'a "${MDPLAN_PROMPT}" b'],
    ['a "{prompt}" b', 'a "${MDPLAN_PROMPT}" b'],
    [`a '{prompt}' b`, `a ''"\${MDPLAN_PROMPT}"'' b`],
    ['"$(x {agent})"', '"$(x "${MDPLAN_AGENT}")"'],
    ['# it\'s {plan}\necho {plan}', '# it\'s {plan}\necho "${MDPLAN_PLAN}"'],
    ['echo \\"{prompt_file}', 'echo \\""${MDPLAN_PROMPT_FILE}"'],
    ['cat <<-END >f\n\t{agent_id}\n\tEND\necho {agent}', 'cat <<-END >f\n\t${MDPLAN_AGENT_ID}\n\tEND\necho "${MDPLAN_AGENT}"'],
    ['{other}', '{other}']
  ])('%j', (script, expected) => {
    expect(quotePlaceholders(script, names)).toBe(expected)
  })

  it('fills argv words outside a script by value', () => {
    const values = {prompt: 'P', prompt_file: '/f', agent: 'A', agent_id: 'S', plan: '/p.md'}
    expect(fillTemplate(['timeout', '9', 'sh', '-c', 'agent {prompt} > {agent}.out', 'sh', '{prompt}'], values)).toEqual([
      'timeout', '9', 'sh', '-c', 'agent "${MDPLAN_PROMPT}" > "${MDPLAN_AGENT}".out', 'sh', 'P'
    ])
  })
})

describe('validate and --dry-run refuse an unsafe template before anything launches', () => {
  it('names the template, the agents and the reason', async () => {
    await isolateGitConfig()
    const plan = shellPlan({A: {script: 'x'}, B: {script: 'y'}}).replace('runner: shell', `runner: "python3 -c 'print({prompt})'"`)
    const repo = await tempRepo({'plan.md': plan})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.all).toMatch(/plan\.md:2:1: the runner template `python3 -c 'print\(\{prompt\}\)'` of agents A, B cannot run: python runs/)
    expect(validate.all).toContain('[unsafe-runner-template]')
    const dry = await runCli(['run', '--dry-run', '--runner', `sh -c 'eval {prompt}'`, 'plan.md'], {cwd: repo.root})
    expect(dry.exitCode).toBe(2)
    expect(dry.all).toContain('runs prompt text as code: `eval`')
    const unterminated = await runCli(['run', '--dry-run', '--runner', `sh -c 'echo`, 'plan.md'], {cwd: repo.root})
    expect(unterminated.exitCode).toBe(2)
    expect(unterminated.all).toContain('unterminated')
    expect(await repo.read('plan.md')).toBe(plan)
    await repo.cleanup()
  })
})
