import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {registerInit} from '../src/cli/commands/init.js'
import {runCommand} from '../fixtures/report/run-command.js'
import {installCommands} from '../src/init/install-commands.js'
import {isPristine, stampTemplate} from '../src/init/stamp-template.js'

const claudePath = '.claude/commands/execute-parallel-plan.md'
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
  it('installs a Claude command whose front matter and arguments follow the Claude command format', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    const results = await installCommands({root})
    expect(results).toEqual([
      {path: claudePath, action: 'created'},
      {path: codexPath, action: 'created'}
    ])
    const text = await readFile(join(root, claudePath), 'utf8')
    const {data, body} = frontMatter(text)
    expect(data.description).toMatch(/mdplan/)
    expect(data['argument-hint']).toBe('<plan.md> [mdplan run flags]')
    const rules = String(data['allowed-tools']).split(/,\s*/)
    expect(rules).toContain('Read')

    // Arguments are 0-based: `$0` is the plan, `$ARGUMENTS` the plan and the flags.
    expect(body).toContain('`mdplan run $ARGUMENTS`')
    expect(body).toContain('`mdplan report $0`')
    expect(body).not.toMatch(/\$[1-9]/)
    // `!` commands run before the model: none here, the model runs mdplan itself.
    expect(body).not.toMatch(/!`/)

    // Every mdplan command the body asks for is allowed by the front matter.
    const commands = [...body.matchAll(/`((?:npx )?mdplan [^`]*)`/g)].map((m) => m[1]!.replace(/\$ARGUMENTS|\$0/g, 'plans/x.md'))
    expect(commands.length).toBeGreaterThanOrEqual(4)
    for (const command of commands) expect(allows(rules, command), command).toBe(true)
    expect(isPristine(text)).toBe(true)
  })

  it('installs a Codex skill with name and description', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mdplan-init-'))
    await installCommands({root})
    const {data, body} = frontMatter(await readFile(join(root, codexPath), 'utf8'))
    expect(data.name).toBe('execute-parallel-plan')
    expect(data.description).toMatch(/mdplan run/)
    expect(body).toContain('mdplan report PLAN')
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
