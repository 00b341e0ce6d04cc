import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readHosts} from '../../../src/hosts/read-hosts.js'
import {accountCap} from '../../../src/hosts/account-cap.js'
import {checkAccounts} from '../../../src/hosts/check-accounts.js'
import {resolveRunner} from '../../../src/runners/resolve-runner.js'
import type {Plan} from '../../../src/plan/types.js'

/** A plan of `count` agents of `runner` (each may run on `pool`), under this front matter. */
function plan(front: string, count: number, pool?: string): Plan {
  const agents = Array.from({length: count}, (_, i) => `### A${i}: a${i}\n- **depends_on**: []\n${pool ? `- **host**: ${pool}\n` : ''}- **prompt**: |\n    go\n`)
  return parsePlan(`---\n${front}\n---\n\n# Parallel Plan: t\n\n## Agents\n\n${agents.join('\n')}`, 'plan.md')
}

const check = (p: Plan, concurrency: number) =>
  checkAccounts(p, readHosts(p), (agent) => resolveRunner(p, agent), {value: concurrency, from: p.settings.concurrency === undefined ? 'default' : 'front matter'})

describe('accounts: caps (docs/limits.md, "Accounts")', () => {
  it('reads both forms; a host\'s own cap wins over the front matter\'s, which wins over the runner\'s default', () => {
    const p = plan('runner: claude\naccounts:\n  claude: 3\n  Codex: {concurrency: 2}\nhosts:\n  build1: {type: ssh, address: b1, slots: 8, accounts: {claude: 1}}', 1)
    expect(p.messages).toEqual([])
    expect(p.settings.accounts?.caps).toEqual({claude: 3, codex: 2})
    expect(p.settings.accounts?.entries.claude).toMatchObject({line: 4, column: 3})
    const hosts = readHosts(p).hosts
    const claude = resolveRunner(p, p.agents[0]!)
    expect(accountCap(p.settings, hosts.get('build1'), claude)).toEqual({cap: 1, from: 'host'})
    expect(accountCap(p.settings, hosts.get('local'), claude)).toEqual({cap: 3, from: 'front matter'})
    const bare = plan('runner: gemini', 1)
    expect(accountCap(bare.settings, undefined, resolveRunner(bare, bare.agents[0]!))).toEqual({cap: 8, from: 'runner'})
    const shell = plan('runner: shell', 1)
    expect(accountCap(shell.settings, undefined, resolveRunner(shell, shell.agents[0]!))).toBeUndefined()
  })

  it('reports a wrong host `accounts:` at the host, and a wrong front matter entry at its line and column', () => {
    const p = plan('accounts: {claude: 2, codex: -1}\nhosts:\n  build1: {type: ssh, address: b1, accounts: [claude]}', 1)
    expect(p.messages.map((m) => `${(m.place as {line: number}).line}:${(m.place as {column: number}).column} ${m.reason}`)).toEqual([
      '2:23 front matter `accounts`: `codex`: must be a whole number of at least 1 (or `{concurrency: N}`), not `-1`'
    ])
    expect(readHosts(p).diagnostics.map((d) => d.reason)).toEqual([expect.stringMatching(/^host `build1`: `accounts` must be a mapping of runner names/)])
  })

  it('warns where the caps, not concurrency, decide, summing the caps of the hosts the agents may use', () => {
    expect(check(plan('runner: claude\nconcurrency: 12', 40), 12).map((d) => d.reason)).toEqual([
      "concurrency 12 would run 12 of the 40 `claude` agents at once, but their account allows 8: 8 on local (the claude runner's default); the account cap applies"
    ])
    // Fewer agents than the cap, or a runner with no cap: nothing to say.
    expect(check(plan('runner: claude\nconcurrency: 12', 8), 12)).toEqual([])
    expect(check(plan('runner: shell\nconcurrency: 12', 40), 12)).toEqual([])
    // Two hosts of 4 and 8: twelve fit.
    const pool = 'runner: codex\nconcurrency: 12\naccounts: {codex: 4}\nhosts:\n  b1: {type: ssh, address: b1, slots: 8, accounts: {codex: 8}}'
    expect(check(plan(pool, 20, '[local, b1]'), 12)).toEqual([])
    const over = check(plan(pool, 20, '[local, b1]'), 13)
    expect(over.map((d) => d.reason)).toEqual([
      "concurrency 13 would run 13 of the 20 `codex` agents at once, but their accounts allow 12: 4 on local (front matter `accounts`) + 8 on b1 (host `b1`'s `accounts`); the account cap applies"
    ])
    expect(over[0]!.place).toMatchObject({line: 3, column: 1})
  })

  it('warns of a name no runner has, with the known ones, at its entry', () => {
    const warnings = check(plan('accounts:\n  claud: 2', 1), 4)
    expect(warnings.map((d) => [d.rule, d.severity, d.reason, d.place])).toEqual([
      ['unknown-account-runner', 'warning', 'front matter `accounts`: unknown runner `claud` (known: claude, codex, gemini, opencode, shell, command); it caps nothing', expect.objectContaining({line: 3, column: 3})]
    ])
  })
})
