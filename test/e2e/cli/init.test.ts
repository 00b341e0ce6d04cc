import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {registerInit} from '../../../src/cli/commands/init.js'
import {runCommand} from '../../../fixtures/report/run-command.js'
import {installCommands} from '../../../src/init/install-commands.js'
import {isPristine, stampTemplate} from '../../../src/init/stamp-template.js'
import {splitTemplate} from '../../../src/runners/template-safety/split-template.js'
import {bin as cliBin, runCli, shellPlan} from '../../helpers/run-cli.js'
import {execa} from 'execa'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'

const claudePath = '.claude/skills/execute-parallel-plan/SKILL.md'
const oldClaudePath = '.claude/commands/execute-parallel-plan.md'

/**
 * A skill body as Claude Code 2.1.330 hands it to the model: `$ARGUMENTS` is
 * the text as typed (quotes kept); `$N` and `$ARGUMENTS[N]` the N-th argument
 * split shell-style (quotes stripped), 0-based; a missing one stays as written.
 */
function substituteLikeClaudeCode(body: string, typed: string): string {
  const args = splitTemplate(typed)
  return body
    .replace(/\$ARGUMENTS\[(\d+)\]|\$(\d+)/g, (whole, a?: string, b?: string) => args[Number(a ?? b)] ?? whole)
    .replace(/\$ARGUMENTS/g, typed)
}

/** A path as one POSIX shell word, the way the skill tells the model to write PLAN: single quotes, `'` as `'\''`. */
function shellWord(path: string): string {
  return `'${path.replace(/'/g, "'\\''")}'`
}

/** The rendered body with PLAN written as the skill says: the path between `<plan>` and `</plan>`, as one shell word. */
function asTheModelWrites(rendered: string): string {
  const path = /<plan>([\s\S]*?)<\/plan>/.exec(rendered)![1]!
  return rendered.replace(/`mdplan ([^`]*)PLAN`/g, (_, before: string) => `\`mdplan ${before}${shellWord(path)}\``)
}

/** The argv of each `mdplan …` command line in a rendered body, as a POSIX shell splits it. */
function commandLines(rendered: string): string[][] {
  return [...rendered.matchAll(/`(mdplan [^`]*)`/g)].map((m) => splitTemplate(m[1]!)).filter((argv, i, all) => all.findIndex((other) => other.join('\0') === argv.join('\0')) === i)
}
const codexPath = '.agents/skills/execute-parallel-plan/SKILL.md'

function frontMatter(text: string): {data: Record<string, string>; body: string} {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (!match) throw new Error('no front matter at the top')
  return {data: parseYaml(match[1]!) as Record<string, string>, body: text.slice(match[0].length)}
}

/** Does a Claude `allowed-tools` rule such as `Bash(mdplan run:*)` allow `command`? */
function allows(rules: string[], command: string): boolean {
  return rules.some((rule) => {
    const match = /^Bash\((.+?)(:\*)?\)$/.exec(rule)
    if (!match) return false
    return match[2] ? command === match[1] || command.startsWith(match[1]! + ' ') : command === match[1]
  })
}

describe('mdplan init', () => {
  it('installs a Claude Code skill whose front matter follows the skill format, with no npx', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    const results = await installCommands({root})
    expect(results).toEqual([
      {path: claudePath, action: 'created'},
      {path: codexPath, action: 'created'}
    ])
    const text = await readFile(join(root, claudePath), 'utf8')
    const {data, body} = frontMatter(text)
    expect(data.name).toBe('execute-parallel-plan')
    expect(data.description).toMatch(/mdplan/)
    expect(data['argument-hint']).toBe('<plan.md> [mdplan run flags]')
    // Only the person starts a run: it launches agents that spend money.
    expect(data['disable-model-invocation']).toBe(true)
    const rules = String(data['allowed-tools']).split(/,\s*/)
    expect(rules).toContain('Read')
    // Whoever publishes `mdplan` on npm would run in the person's session.
    expect(text).not.toMatch(/npx mdplan|Bash\(npx/)
    expect(rules.every((rule) => rule === 'Read' || rule.startsWith('Bash(mdplan '))).toBe(true)

    expect(body).toContain('`mdplan run $ARGUMENTS`')
    expect(body).toContain('`mdplan report PLAN`')
    expect(body).not.toContain("'$0'")
    expect(body).not.toMatch(/\$[1-9]/)
    // `!` commands run before the model: none here, the model runs mdplan itself.
    expect(body).not.toMatch(/!`/)

    // Every mdplan command the body asks for is allowed by the front matter.
    const commands = [...body.matchAll(/`(mdplan [^`]*)`/g)].map((m) => m[1]!.replace(/\$ARGUMENTS|\$0|PLAN/g, 'plans/x.md'))
    expect(commands.length).toBeGreaterThanOrEqual(4)
    for (const command of commands) expect(allows(rules, command), command).toBe(true)
    expect(isPristine(text)).toBe(true)
  })

  it('renders, as Claude Code 2.1.330 substitutes it, to correct command lines for a path with spaces', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const {body} = frontMatter(await readFile(join(root, claudePath), 'utf8'))
    const rendered = asTheModelWrites(substituteLikeClaudeCode(body, `"plans/my plan.md" --concurrency 2`))
    expect(rendered).toContain('<arguments>"plans/my plan.md" --concurrency 2</arguments>')
    expect(commandLines(rendered)).toEqual([
      ['mdplan', 'run', 'plans/my plan.md', '--concurrency', '2'],
      ['mdplan', 'report', 'plans/my plan.md'],
      ['mdplan', 'answer'],
      ['mdplan', 'answer', '--help'],
      ['mdplan', 'status', 'plans/my plan.md']
    ])

    // The rendered run line, run for real on a plan whose path has a space.
    await isolateGitConfig()
    const repo = await tempRepo({'plans/my plan.md': shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}})})
    const [run, report] = commandLines(rendered)
    const ran = await runCli(run!.slice(1), {cwd: repo.root})
    expect(ran.exitCode, ran.all).toBe(0)
    const reported = await runCli(report!.slice(1), {cwd: repo.root})
    expect(reported.exitCode, reported.all).toBe(0)
    await repo.cleanup()
  })

  it('gives command lines that survive any path through sh -c: an apostrophe, spaces, $, backticks, a line break', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const {body} = frontMatter(await readFile(join(root, claudePath), 'utf8'))
    // The worked example in the skill is the rule this test applies.
    const example = /so `([^`]+)` is\s+`([^`]+)`/.exec(body)!
    expect(example[1]).toBe("plans/bob's plan.md")
    expect(shellWord(example[1]!)).toBe(example[2])
    expect(body).toContain('`mdplan report PLAN`')

    await isolateGitConfig()
    const bin = join(root, 'bin')
    await mkdir(bin)
    await writeFile(join(bin, 'mdplan'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliBin)} "$@"\n`, {mode: 0o755})
    const paths = ["plans/bob's plan.md", 'plans/my plan.md', 'plans/$HOME and `id`.md', 'plans/two\nlines.md', `plans/it's "$(echo hi)" \\ too.md`]
    for (const path of paths) {
      const repo = await tempRepo({[path]: shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}})})
      // The person quotes the path as a shell would need it; Claude Code hands `$0` over unquoted.
      const typed = `${shellWord(path)} --concurrency 2`
      const rendered = substituteLikeClaudeCode(body, typed)
      expect(/<plan>([\s\S]*?)<\/plan>/.exec(rendered)![1]).toBe(path)
      expect(rendered).toContain(`\`mdplan run ${typed}\``)
      const sh = (line: string) => execa('sh', ['-c', line], {cwd: repo.root, env: {PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1'}, reject: false, all: true})
      const ran = await sh(`mdplan run ${typed}`)
      expect(ran.exitCode, `${path}: ${ran.all}`).toBe(0)
      const reported = await sh(`mdplan report ${shellWord(path)}`)
      expect(reported.exitCode, `${path}: ${reported.all}`).toBe(0)
      expect(reported.stdout).toMatch(/^A +a-step +completed/m)
      await repo.cleanup()
    }
  }, 60_000)

  it('renders with no argument to an empty arguments block and the instruction to ask, before any command', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const {body} = frontMatter(await readFile(join(root, claudePath), 'utf8'))
    const rendered = substituteLikeClaudeCode(body, '')
    expect(rendered).toContain('<arguments></arguments>')
    const ask = rendered.indexOf('If nothing is between `<arguments>` and `</arguments>`, no plan was given: ask')
    expect(ask).toBeGreaterThan(-1)
    expect(ask).toBeLessThan(rendered.indexOf('`mdplan run'))
    // 2.1.330 leaves `$0` as written; no command line holds it, so it never becomes the shell's own `$0`.
    expect(commandLines(rendered).slice(0, 2)).toEqual([
      ['mdplan', 'run'],
      ['mdplan', 'report', 'PLAN']
    ])
    // Even if the model ran the line anyway, mdplan refuses it and touches nothing.
    const ran = await runCli(commandLines(rendered)[0]!.slice(1), {cwd: root})
    expect(ran.exitCode).toBe(2)
    expect(ran.all).toContain("missing required argument 'plan'")
  })

  it('installs a Codex skill with name and description', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const {data, body} = frontMatter(await readFile(join(root, codexPath), 'utf8'))
    expect(data.name).toBe('execute-parallel-plan')
    expect(data.description).toMatch(/mdplan run/)
    expect(body).toContain('mdplan report PLAN')
    expect(body).toContain("`plans/bob's plan.md` is `'plans/bob'\\''s plan.md'`")
    expect(body).not.toMatch(/npx mdplan/)
  })

  it('removes the command an older mdplan installed, unless the person changed it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    const old = stampTemplate('---\ndescription: old\n---\n\nRun `npx mdplan run $ARGUMENTS`.\n', 'execute-parallel-plan', 1)
    await mkdir(join(root, '.claude/commands'), {recursive: true})
    await writeFile(join(root, oldClaudePath), old)
    expect((await installCommands({root}))[2]).toEqual({path: oldClaudePath, action: 'removed'})
    expect(existsSync(join(root, oldClaudePath))).toBe(false)

    await writeFile(join(root, oldClaudePath), old + 'my own line\n')
    expect((await installCommands({root}))[2]).toEqual({path: oldClaudePath, action: 'kept-retired'})
    expect(existsSync(join(root, oldClaudePath))).toBe(true)
    const cli = await runCommand(registerInit, ['init'], {cwd: root})
    expect(cli.stdout).toContain(`${oldClaudePath}: kept: you changed this older command`)
  })

  it('is idempotent, keeps a file the person changed, and replaces it with --force', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const first = await readFile(join(root, claudePath), 'utf8')
    expect((await installCommands({root})).map((r) => r.action)).toEqual(['unchanged', 'unchanged'])
    expect(await readFile(join(root, claudePath), 'utf8')).toBe(first)

    const edited = first + '\nAlso run the linter.\n'
    await writeFile(join(root, claudePath), edited)
    expect((await installCommands({root})).map((r) => r.action)).toEqual(['skipped-modified', 'unchanged'])
    expect(await readFile(join(root, claudePath), 'utf8')).toBe(edited)

    expect((await installCommands({root, force: true})).map((r) => r.action)).toEqual(['overwritten', 'unchanged'])
    expect(await readFile(join(root, claudePath), 'utf8')).toBe(first)
  })

  it('upgrades a file an older mdplan installed that nobody edited', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const old = stampTemplate('---\ndescription: old\n---\n\nOld body.\n', 'execute-parallel-plan', 0)
    await writeFile(join(root, claudePath), old)
    expect((await installCommands({root}))[0]).toEqual({path: claudePath, action: 'updated'})
  })

  it('a file without the marker counts as the person’s', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    await writeFile(join(root, codexPath), '---\nname: mine\n---\n')
    expect((await installCommands({root}))[1]!.action).toBe('skipped-modified')
  })

  it('the CLI prints what it did and how to go on', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    const first = await runCommand(registerInit, ['init'], {cwd: root})
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`${claudePath}: created`)
    expect(first.stdout).toContain('/execute-parallel-plan plan.md')
    await writeFile(join(root, claudePath), 'mine\n')
    const again = await runCommand(registerInit, ['init', '--dir', '.'], {cwd: root})
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/skipped: .*mdplan init --force/)
    const forced = await runCommand(registerInit, ['init', '--force'], {cwd: root})
    expect(forced.stdout).toContain(`${claudePath}: overwritten`)
    const help = await runCommand(registerInit, ['init', '--help'], {cwd: root})
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--force/)
  })
})
