import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {commandRunner} from '../../../src/runners/builtin-runners.js'
import {templateProblem} from '../../../src/runners/template-safety/template-problem.js'
import {splitTemplate} from '../../../src/runners/template-safety/split-template.js'
import {request, tempDir} from '../../helpers/runner-support.js'
import {readAgentLog, logged} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'

const attack = '$(touch PWNED) `touch PWNED`; touch PWNED\ntouch PWNED\na[$(touch PWNED)]'

// Each of these lets a placeholder's text run as code (or as the command); the
// first four are the forms the issue found accepted.
const unsafe: Array<[string, string]> = [
  ['env with grouped flags -iS', 'env -iS {prompt}'],
  ['a script piping its text into bash', `bash -c "echo {prompt} | bash"`],
  ['python3 with grouped flags -Ic', 'python3 -Ic {prompt}'],
  ['perl -ne', 'perl -ne {prompt}'],
  ['node -pe', 'node -pe {prompt}'],
  ['ruby -e attached', 'ruby -e{prompt}'],
  ['awk program', 'awk {prompt}'],
  ['sed script', 'sed {prompt} /dev/null'],
  ['a script file from the prompt', 'sh {prompt_file}'],
  ['python reading the prompt file as its script', 'python3 -u {prompt_file}'],
  ['the prompt as the program', '{prompt}'],
  ['the prompt as the program after timeout', 'timeout 9 {prompt}'],
  ['the prompt as the program after env', 'env -u HOME FOO=1 {prompt}'],
  ['the prompt as the program after xargs', 'xargs -n1 {prompt}'],
  ['part of an option', 'my-agent -p{prompt}'],
  ['$1 into eval', `sh -c 'eval "$1"' sh {prompt}`],
  ['$1 into bash -c', `sh -c 'bash -c "$1"' sh {prompt}`],
  ['$1 piped into sh', `sh -c 'printf %s "$1" | sh' sh {prompt}`],
  ['$1 piped through cat into python3', `sh -c 'printf %s "$1" | cat | python3' sh {prompt}`],
  ['a here-string into bash', `bash -c 'bash <<< "$1"' _ {prompt}`],
  ['a heredoc into sh', `sh -c 'sh <<EOF\n{prompt}\nEOF'`],
  ['source of a process substitution', `bash -c 'source <(printf %s "$1")' _ {prompt}`],
  ['. /dev/stdin', `bash -c 'printf %s "$1" | . /dev/stdin' _ {prompt}`],
  ['through a variable into eval', `sh -c 'x=$1; y="$x"; eval "$y"' sh {prompt}`],
  ['through read into eval', `bash -c 'read -r x <<< "$1"; eval "$x"' _ {prompt}`],
  ['through a function', `sh -c 'f() { eval "$1"; }; f "$1"' sh {prompt}`],
  ['unquoted $1', `sh -c 'printf %s $1' sh {prompt}`],
  ['indirect expansion', `bash -c 'echo "\${!1}"' _ {prompt}`],
  ['arithmetic on $1', `bash -c 'echo $(( $1 ))' _ {prompt}`],
  ['printf -v with the prompt as the name', `bash -c 'printf -v "$1" x' _ {prompt}`],
  ['the prompt as the command in the script', `sh -c '"$1"' sh {prompt}`],
  ['$MDPLAN_PROMPT into eval', `sh -c 'eval "$MDPLAN_PROMPT"' sh {prompt}`],
  ['xargs fed the prompt', `sh -c 'printf %s "$1" | xargs sh -c' sh {prompt}`],
  ['sudo running the prompt', 'sudo -u nobody {prompt}']
]

describe('unsafe-runner-template: what cannot be shown safe is refused before launch', () => {
  it.each(unsafe)('%s: refused, and the prompt never runs', async (_, template) => {
    expect(templateProblem(splitTemplate(template))).toBeDefined()
    const dir = tempDir()
    const result = await commandRunner(template).run(request(dir, {prompt: attack}))
    expect(result.ok).toBe(false)
    expect(result.reason).toMatch(/^unsafe runner template: /)
    expect(existsSync(join(dir, 'PWNED'))).toBe(false)
  })

  it('validate names file:line:col and the rule; run launches nothing and changes nothing', async () => {
    await isolateGitConfig()
    const log = join(tempDir(), 'agents.log')
    const plan = shellPlan({A: {script: logged(log, 'true')}}).replace('runner: shell', `runner: "env -iS {prompt}"`)
    const repo = await tempRepo({'plan.md': plan})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toMatch(/^plan\.md:2:1: the runner template `env -iS \{prompt\}` of agent A cannot run: env runs `\{prompt\}` as code, .*; if the plan truly means it, add allow_unsafe_template: true beside its runner \[unsafe-runner-template\]$/m)
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('[unsafe-runner-template]')
    expect((await readAgentLog(log)).lines).toEqual([])
    expect(await repo.read('plan.md')).toBe(plan)
    await repo.cleanup()
  })

  it('a plan that opts in with allow_unsafe_template: true runs it, and validate warns every time', async () => {
    await isolateGitConfig()
    const dir = tempDir()
    const log = join(dir, 'agents.log')
    // The agent's own runner field, with the opt-in beside it: the prompt is the script.
    const plan = shellPlan({A: {script: `printf 'start %s 1\\n' A >> ${log}; echo RESULT: SUCCESS`}}).replace(
      '- **depends_on**: []',
      `- **depends_on**: []\n- **runner**: sh -c 'eval "$1"' sh {prompt}\n- **allow_unsafe_template**: true`
    )
    const repo = await tempRepo({'plan.md': plan})
    for (let time = 0; time < 2; time++) {
      const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
      expect(validate.exitCode).toBe(0)
      expect(validate.stdout).toMatch(/plan\.md:\d+:\d+: warning: the runner template `sh -c 'eval "\$1"' sh \{prompt\}` of agent A may run prompt text as code, and runs because the plan says allow_unsafe_template: true: .* \[unsafe-runner-template\]/)
    }
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(0)
    expect(run.all).toMatch(/warning: the runner template .* may run prompt text as code, and runs because the plan says allow_unsafe_template: true/)
    expect([...(await readAgentLog(log)).starts.entries()]).toEqual([['A#1', 1]])
    // The consent is for the plan's own template: the same template from --runner is refused.
    const flagged = await runCli(['run', 'plan.md', '--dry-run', '--runner', `sh -c 'eval "$1"' sh {prompt}`], {cwd: repo.root})
    expect(flagged.exitCode).toBe(2)
    await repo.cleanup()
  })
})

// Safe-looking and unsafe pieces, combined at random: whatever the checker
// accepts is run for real with a hostile prompt, and must not run it.
const wrappers = ['', 'timeout 30 ', 'env X=1 ', 'nice -n 1 ', 'setsid ', 'stdbuf -oL ', 'xargs ']
const shells = ['sh -c', 'bash -c', 'bash -o pipefail -c', 'sh -ec', 'bash -lc']
const bodies = [
  'printf %s {prompt}',
  'printf %s "{prompt}"',
  "printf %s '{prompt}'",
  'printf %s "$1"',
  'x={prompt}; printf %s "$x"',
  'x=$(printf %s "$1"); printf %s "$x"',
  'cat <<EOF\n{prompt}\nEOF',
  'printf %s {prompt} | cat',
  '[ -n "$1" ] && printf %s "$1"',
  'printf %s "$MDPLAN_PROMPT"',
  'cat "$1"',
  'eval {prompt}',
  'printf %s {prompt} | sh',
  'bash -c "$1"',
  'printf %s $1',
  'sh -c "printf %s {prompt}"',
  '$1',
  'x=$1; eval "$x"',
  'echo $(( $1 ))',
  'sh <<< "$1"'
]
const suffixes = ['', ' sh {prompt}', ' sh {prompt_file}', ' _ "{prompt}"']
const direct = ['printf %s {prompt}', 'cat {prompt_file}', 'sh {prompt_file}', 'env -S {prompt}', 'printf %s --x={prompt}', 'printf %s{prompt}', '{prompt}', 'timeout 5 {prompt}', 'python3 -c {prompt}']
// The red team's programs (redteam/template-injection.sh): not on any list of interpreters, each runs its argument.
const redTeam = ['rbash -c {prompt}', 'tmux -L mdplan-prop new-session -d {prompt}', 'sg root {prompt}', 'npx --yes -c {prompt}', 'make -f /dev/null --eval={prompt}', 'gdb -q -batch -ex {prompt}', 'vim -u NONE -es -c {prompt} -c qa!', 'git -c {prompt} status', 'timeout 20 rbash -c {prompt}']
const redTeamBodies = ['sg root {prompt}', 'rbash -c "$1"', 'git -c "$1" status', 'make -f /dev/null --eval="$1"', 'gdb -q -batch -ex "$1"', 'printf %s "$1" | sed e']
const pieces = ['$(touch PWNED)', '`touch PWNED`', '; touch PWNED', '\ntouch PWNED\n', "'; touch PWNED; '", '"; touch PWNED; "', 'EOF\ntouch PWNED\nEOF', 'a[$(touch PWNED)]', 'touch PWNED', '-c touch PWNED', '*', ' ', '$(shell touch PWNED)', 'shell touch PWNED', '!touch PWNED', 'core.fsmonitor=touch PWNED; false']

describe('a template the checker accepts never runs its prompt', () => {
  it('property: random templates × hostile prompts, run for real (seeded)', async () => {
    const template = fc.oneof(
      fc.tuple(fc.constantFrom(...wrappers), fc.constantFrom(...shells), fc.constantFrom(...bodies, ...redTeamBodies), fc.constantFrom(...suffixes)).map(([wrapper, shell, body, suffix]) => `${wrapper}${shell} '${body.replaceAll("'", `'\\''`)}'${suffix}`),
      fc.constantFrom(...direct),
      fc.constantFrom(...redTeam)
    )
    const prompt = fc.array(fc.constantFrom(...pieces), {minLength: 1, maxLength: 5}).map((parts) => parts.join(''))
    let accepted = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(template, prompt, async (text, body) => {
        const argv = splitTemplate(text)
        if (templateProblem(argv) !== undefined) {
          refused++
          return
        }
        accepted++
        const dir = tempDir()
        await commandRunner(text).run(request(dir, {prompt: body, timeoutMs: 20_000}))
        expect(readdirSync(dir).filter((name) => name.startsWith('PWNED')), `${text} ran ${JSON.stringify(body)}`).toEqual([])
      }),
      {seed: Number(process.env.MDPLAN_FUZZ_SEED ?? 8), numRuns: Number(process.env.FUZZ_RUNS ?? 120)}
    )
    // Both sides were exercised, so the property can fail.
    expect(accepted).toBeGreaterThan(10)
    expect(refused).toBeGreaterThan(10)
  }, 300_000)
})
