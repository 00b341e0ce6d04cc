import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {createExecState} from '../../../src/executor/create-exec-state.js'
import {renderNotes} from '../../../src/executor/row-notes.js'
import type {ExecConfig} from '../../../src/executor/exec-config.js'
import {step} from '../../../src/executor/step.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readHosts} from '../../../src/hosts/read-hosts.js'
import {isSafeKey, jobKey, jobKeyPrefix, parseJobKey, parseJobNote} from '../../../src/hosts/job-key.js'
import {emptyRow} from '../../../src/store/table-state.js'
import {simAgent} from '../../helpers/exec-sim.js'
import {mergeBranch} from '../../../src/git/merge-branch.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli, setupPlan, shellPlan} from '../../helpers/run-cli.js'

beforeAll(isolateGitConfig)

const badPlan = `---
runner: shell
hosts:
  build1: {type: ssh, slots: 2}
  box: {type: vm, address: x}
  sandbox: {type: container, slots: 0}
host: [build1, nowhere]
---

# Parallel Plan: t

## Agents

### A: a
- **depends_on**: []
- **host**: elsewhere
- **prompt**: |
    true
`

describe('declaring hosts', () => {
  it('names every bad host declaration by line and column, exits 2 and leaves the plan untouched', async () => {
    const {dir, plan} = await setupPlan({text: badPlan})
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('plan.md:4:3: host `build1`: an ssh host needs `address`')
    // At the type's own word, naming the types the map knows (src/hosts/host-types.ts).
    expect(result.stderr).toContain('plan.md:5:15: host `box`: unknown type "vm" (known: ssh, container, slurm, kubernetes)')
    expect(result.stderr).toContain('plan.md:6:3: host `sandbox`: a container host needs `image`')
    expect(result.stderr).toContain('plan.md:6:3: host `sandbox`: `slots` must be a whole number of at least 1')
    expect(result.stderr).toContain('plan.md:7:16: unknown host `nowhere` in front matter `host`')
    expect(result.stderr).toContain('plan.md:16:13: unknown host `elsewhere` in `host` of agent A')
    expect(await readFile(plan, 'utf8')).toBe(badPlan)
    const validate = await runCli(['validate', plan], {cwd: dir})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain('plan.md:16:13: unknown host `elsewhere`')
  })

  it('reads pools: an agent\'s own host beats --host, which beats the front matter', () => {
    const plan = parsePlan(
      [
        '---',
        'hosts:',
        '  a: {type: ssh, address: dev@a, slots: 8, env: [ANTHROPIC_API_KEY], lease: 30s}',
        '  b: {type: ssh, address: b, port: 2222}',
        'host: [a, b]',
        '---',
        '# Parallel Plan: t',
        '## Agents',
        '### A: x',
        '- **host**: b',
        '- **prompt**: |',
        '    true',
        '### B: y',
        '- **prompt**: |',
        '    true',
        ''
      ].join('\n'),
      'plan.md'
    )
    const read = readHosts(plan)
    expect(read.diagnostics).toEqual([])
    expect(read.hosts.get('a')).toMatchObject({type: 'ssh', address: 'dev@a', slots: 8, env: ['ANTHROPIC_API_KEY'], leaseMs: 30_000})
    expect(read.hosts.get('b')).toMatchObject({port: 2222, slots: 1, leaseMs: 120_000})
    expect(read.poolOf('A')).toEqual(['b'])
    expect(read.poolOf('B')).toEqual(['a', 'b'])
    expect(readHosts(plan, 'local').poolOf('B')).toEqual(['local'])
    expect(readHosts(plan, 'local').poolOf('A')).toEqual(['b'])
  })

  it('keys are safe names that carry the plan, agent and attempt, and read back from Notes', () => {
    const key = jobKey('add auth', 'B.2', 3, '3f9c1a')
    expect(key).toBe('mdplan8-add-auth-B.2-a3-3f9c1a')
    expect(parseJobNote(`build1 ${key}`)).toEqual({host: 'build1', key})
    expect(parseJobNote('build1 rm -rf /')).toBeUndefined()
    // A key an older mdplan wrote in a row still reads back: a rerun re-attaches to its job.
    expect(parseJobNote('build1 mdplan-auth-B-a2-3f9c1a')).toEqual({host: 'build1', key: 'mdplan-auth-B-a2-3f9c1a'})
    expect(isSafeKey('mdplan-auth-B-a2-3f9c1a')).toBe(true)
  })

  it('a key says exactly whose it is: plan `a` agent `b-c` and plan `a-b` agent `c` never share a key or a prefix', () => {
    const cases: Array<[string, string]> = [['a', 'b-c'], ['a-b', 'c'], ['x', 'plan-A'], ['x--plan', 'A'], ['plan', 'A-a1-ff'], ['p.q_r', 'Z9._-x']]
    const keys = cases.map(([slug, agent]) => jobKey(slug, agent, 1, 'ff00'))
    expect(new Set(keys).size).toBe(keys.length)
    for (const [index, [slug, agent]] of cases.entries()) {
      expect(parseJobKey(keys[index]!)).toEqual({slug, agent, attempt: 1, nonce: 'ff00'})
      // Only its own plan's prefix begins it.
      expect(cases.filter(([other]) => keys[index]!.startsWith(jobKeyPrefix(other))).map(([other]) => other)).toEqual([slug])
    }
    expect(parseJobKey('mdplan-a-b-c-a1-ff00')).toBeUndefined()
  })
})

describe('placement (pure)', () => {
  it('puts each ready agent on the pool host with the most free slots, within each host\'s slots and the cap', () => {
    const agents = ['A', 'B', 'C', 'D', 'E', 'F'].map((id) => simAgent(id, []))
    let keys = 0
    const config: ExecConfig = {
      concurrency: 5,
      maxAttempts: 1,
      failFast: false,
      canResume: () => false,
      newAgentId: () => undefined,
      childPlan: () => false,
      git: true,
      logFile: () => '/dev/null',
      rateLimitPauseMs: 1000,
      hosts: {pool: (id) => (id === 'F' ? ['h1'] : ['h1', 'h2']), slots: (host) => (host === 'h1' ? 1 : 3), remote: () => true, newKey: (agent, attempt) => jobKey('p', agent, attempt, String(++keys).padStart(6, '0'))}
    }
    const state = createExecState({agents, priority: new Map(), table: {rows: new Map(agents.map((a) => [a.id, emptyRow()])), meta: {}}, rateLimitPauseMs: 1000})
    step(state, {type: 'start', now: 1}, config)
    const placed = [...state.attempts.values()].map((attempt) => `${attempt.agent}@${attempt.host}`)
    // h2 (3 slots) fills first; h1 takes one; F (only h1) waits: 4 running, under the cap of 5.
    expect(placed).toEqual(['A@h2', 'B@h2', 'C@h1', 'D@h2'])
    for (const attempt of state.attempts.values()) expect(renderNotes(state.table.rows.get(attempt.agent)!.notes)).toBe(`job: ${attempt.host} ${attempt.key}`)
  })
})

describe('preflight per host', () => {
  it('an unreachable host is one line with the fix, exit 2, nothing launched', async () => {
    const repo = await tempRepo()
    const front = ['hosts:', `  far: {type: ssh, address: nobody@127.0.0.1, port: 1, slots: 2}`, 'host: far'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: 'touch ran'}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const before = await readFile(plan, 'utf8')
    const result = await runCli(['run', plan], {cwd: repo.root, env: {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/host far \(nobody@127\.0\.0\.1:1\): unreachable over ssh: .*; check that `ssh -p 1 nobody@127\.0\.0\.1 true` works without a password prompt/)
    expect(await readFile(plan, 'utf8')).toBe(before)
    await writeFile(join(repo.root, 'probe'), '')
    expect(await repo.git('status', '--porcelain', '--', 'ran')).toBe('')
    await repo.cleanup()
  })
})

describe('merging after a killed run', () => {
  it('takes back a merge of mdplan\'s that a SIGKILL left half done, then merges the next branch', async () => {
    const repo = await tempRepo({'f.txt': 'base\n'})
    await repo.git('checkout', '-q', '-b', 'mdplan/plan/A')
    await repo.commit('A', {'f.txt': 'A\n'})
    await repo.git('checkout', '-q', 'main')
    await repo.git('checkout', '-q', '-b', 'mdplan/plan/B')
    await repo.commit('B', {'b.txt': 'B\n'})
    await repo.git('checkout', '-q', 'main')
    await repo.commit('main', {'f.txt': 'main\n'})
    // What a coordinator killed in the middle of `git merge` leaves: MERGE_HEAD and mdplan's message.
    await repo.git('merge', '--no-edit', '-m', 'Merge mdplan/plan/A: a', 'mdplan/plan/A').catch(() => undefined)
    expect(await repo.git('rev-parse', '--verify', '-q', 'MERGE_HEAD')).not.toBe('')
    const merged = await mergeBranch({root: repo.root, branch: 'mdplan/plan/B', message: 'b', identity: ['-c', 'user.name=t', '-c', 'user.email=t@e']})
    expect(merged).toMatchObject({ok: true, merged: true})
    expect(await repo.read('b.txt')).toBe('B\n')
    expect(await repo.read('f.txt')).toBe('main\n')
    await repo.cleanup()
  })
})
