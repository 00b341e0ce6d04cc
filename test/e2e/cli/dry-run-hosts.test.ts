import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

/**
 * `run --dry-run` with hosts (in a real git repository; a dry run reaches no host): it refuses what `run` and
 * `validate` refuse, and says where each agent would run. Before, it exited 0 for an agent's `host: h3` no
 * `hosts:` entry declares and for `--host nosuch` (validate and run exit 2), and never named a host.
 */
beforeAll(isolateGitConfig)

const hosts = ['hosts:', '  h1: {type: ssh, address: h1, slots: 2}', '  h2: {type: ssh, address: h2, slots: 2}', 'host: h1'].join('\n')

async function planRepo(agents: Parameters<typeof shellPlan>[0], front = hosts) {
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
  return {repo, plan: join(repo.root, 'plan.md')}
}

describe('run --dry-run with hosts', () => {
  it('an agent host no `hosts:` entry declares, or `--host nosuch`: exit 2 with the line, as validate and run', async () => {
    const {repo, plan} = await planRepo({A: {script: 'true'}, B: {script: 'true', host: 'h3'}})
    const text = (await readTable(plan)).text
    const line = text.split('\n').indexOf('- **host**: h3') + 1
    const validate = await runCli(['validate', plan], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    const dry = await runCli(['run', '--dry-run', plan], {cwd: repo.root})
    expect(dry.exitCode, dry.all).toBe(2)
    expect(dry.stderr).toContain(`plan.md:${line}:`)
    expect(dry.stderr).toContain('unknown host `h3` in `host` of agent B')
    expect(dry.stdout).toBe('')
    const flag = await runCli(['run', '--dry-run', '--host', 'nosuch', plan], {cwd: repo.root})
    expect(flag.exitCode, flag.all).toBe(2)
    expect(flag.stderr).toContain('unknown host `nosuch` in --host')
    expect((await readTable(plan)).text).toBe(text)
    await repo.cleanup()
  })

  it('says where each agent would run: its own host, --host, the front matter\'s pool, and a live job\'s host', async () => {
    const {repo, plan} = await planRepo({A: {script: 'true'}, B: {deps: ['A'], script: 'true', host: '[h2, local]'}, C: {script: 'true'}})
    const dry = await runCli(['run', '--dry-run', plan], {cwd: repo.root})
    expect(dry.exitCode, dry.all).toBe(0)
    expect(dry.stdout).toMatch(/agent\s+runner\s+host\s+first prompt line/)
    expect(dry.stdout).toMatch(/A: a-step\s+shell\s+h1\s/)
    expect(dry.stdout).toMatch(/B: b-step\s+shell\s+h2 or local\s/)
    const flag = await runCli(['run', '--dry-run', '--host', 'h2', plan], {cwd: repo.root})
    expect(flag.stdout).toMatch(/A: a-step\s+shell\s+h2\s/)
    expect(flag.stdout).toMatch(/B: b-step\s+shell\s+h2 or local\s/)
    const prompts = await runCli(['run', '--dry-run', '--prompts', plan], {cwd: repo.root})
    expect(prompts.stdout).toContain('── A: a-step  (runner shell, on h1)')

    // A row a killed run left with its job on h1: that is where C goes back to, whatever --host says.
    const key = 'mdplan13-plan-0123abcd-C-a1-abcdef'
    const text = (await readTable(plan)).text.replace('| C | pending | — | — | |', `| C | in_progress | sh-1 | — | job: h1 ${key} |`)
    await repo.write('plan.md', text)
    const live = await runCli(['run', '--dry-run', '--host', 'local', plan], {cwd: repo.root})
    expect(live.exitCode, live.all).toBe(0)
    expect(live.stdout).toMatch(new RegExp(`C: c-step\\s+shell\\s+h1 \\(its job ${key}\\)`))
    expect(live.stdout).toMatch(/A: a-step\s+shell\s+local\s/)
    // Its host no longer declared: refused at the row, as run refuses it.
    await repo.write('plan.md', text.replace(hosts, 'host: local'))
    const undeclared = await runCli(['run', '--dry-run', plan], {cwd: repo.root})
    expect(undeclared.exitCode, undeclared.all).toBe(2)
    expect(undeclared.stderr).toContain(`agent C is in_progress with its job ${key} on host \`h1\``)
    await repo.cleanup()
  })

  it('a plan without hosts shows no host column', async () => {
    const {repo, plan} = await planRepo({A: {script: 'true'}}, 'concurrency: 2')
    const dry = await runCli(['run', '--dry-run', plan], {cwd: repo.root})
    expect(dry.exitCode, dry.all).toBe(0)
    expect(dry.stdout).toMatch(/agent\s+runner\s+first prompt line/)
    expect(dry.stdout).not.toContain('host')
    await repo.cleanup()
  })
})
