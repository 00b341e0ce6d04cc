import {existsSync, writeFileSync} from 'node:fs'
import {mkdtemp, readFile, rename, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * Edits to where agents run, saved while the run goes on (two real sshd hosts on 127.0.0.1; each agent logs
 * the folder it runs in, so where it ran is read from the agent's side). Before, placement read the pools the
 * run started with: a pending B moved from h1 to h2 ran on h1, a new agent G with `host: h2` ran on h1, and C
 * given an unknown host `h9` was not reported and ran on h1 (exit 0, the plan failing validate after).
 */
const {missing, gates, gitEnv, fixture} = sshdSuite('hosts-ssh-host-edits', 2)

/** A person's save: the file as it is now, edited, written beside it and renamed over it (an editor's way). */
async function save(plan: string, edit: (text: string) => string): Promise<void> {
  const text = await readFile(plan, 'utf8')
  const next = edit(text)
  expect(next).not.toBe(text)
  await writeFile(`${plan}.tmp`, next)
  await rename(`${plan}.tmp`, plan)
}

/** Agent `id`'s section of the plan, edited by `change`. */
function inSection(id: string, change: (section: string) => string): (text: string) => string {
  return (text) => {
    const start = text.indexOf(`### ${id}: `)
    const end = text.indexOf('\n### ', start + 1) === -1 ? text.indexOf('\n## Execution State') : text.indexOf('\n### ', start + 1)
    return text.slice(0, start) + change(text.slice(start, end)) + text.slice(end)
  }
}

describe.skipIf(missing !== undefined)('edits to an agent\'s host during a run', () => {
  it('a pending agent moved to h2 and a new agent on h2 run there; an unknown host is reported at the value and holds that agent until a save fixes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-host-edits-'))
    const log = join(dir, 'agents.log')
    const where = join(dir, 'where.log')
    const goA = join(dir, 'goA')
    const goB = join(dir, 'goB')
    gates.push(goA, goB)
    const [h1, h2] = fixture().hosts
    const host = (h: typeof h1) => `  ${h!.alias}: {type: ssh, address: ${h!.alias}, config: '${fixture().config}', dir: '${h!.dir}', slots: 2}`
    const front = ['max_attempts: 1', 'hosts:', host(h1), host(h2), 'host: h1'].join('\n')
    const script = (id: string, gate?: string) =>
      logged(log, [`echo "${id} $(pwd)" >> '${where}'`, ...(gate ? [`while [ ! -f '${gate}' ]; do sleep 0.05; done`] : []), `echo ${id} > ${id}.txt`].join('\n'))
    const repo = await tempRepo()
    const agents = {
      A: {script: script('A', goA), creates: ['A.txt']},
      B: {deps: ['A'], script: script('B', goB), creates: ['B.txt'], host: 'h1'},
      C: {deps: ['A'], script: script('C'), creates: ['C.txt'], host: 'h1'}
    }
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    let out = ''
    run.all?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await waitFor('A to start', async () => (await readAgentLog(log)).starts.has('A#1'))

    const g = ['### G: g-step', '- **depends_on**: [A]', '- **creates**: [`G.txt`]', '- **host**: h2', '- **prompt**: |', ...script('G').split('\n').map((line) => `    ${line}`), '', ''].join('\n')
    await save(plan, (text) => {
      let next = inSection('B', (section) => section.replace('- **host**: h1', '- **host**: h2'))(text)
      next = inSection('C', (section) => section.replace('- **host**: h1', '- **host**: h9'))(next)
      return next.replace('## Execution State', `${g}## Execution State`)
    })
    await waitFor('the edit to be reported', () => out.includes('C is held'))
    const lines = (await readFile(plan, 'utf8')).split('\n')
    const line = lines.findIndex((text) => text === '- **host**: h9') + 1
    expect(out).toContain(`plan.md:${line}:13: unknown host \`h9\` in \`host\` of agent C`)
    expect(out).toContain('plan edited: G added')

    writeFileSync(goA, '')
    await waitFor('B to start and G to end', async () => {
      const side = await readAgentLog(log)
      return side.starts.has('B#1') && side.starts.has('G#1') && !side.unfinished.includes('G#1')
    })
    // Held: ready since A completed, but not launched while its host is one the run does not have.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect((await readAgentLog(log)).starts.has('C#1')).toBe(false)
    expect(run.exitCode).toBeNull()

    await save(plan, inSection('C', (section) => section.replace('- **host**: h9', '- **host**: h2')))
    await waitFor('C to run once fixed', async () => {
      const side = await readAgentLog(log)
      return side.starts.has('C#1') && !side.unfinished.includes('C#1')
    })
    writeFileSync(goB, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)

    const ran = Object.fromEntries((await readFile(where, 'utf8')).trim().split('\n').map((entry) => entry.split(' ')))
    expect(ran.A!.startsWith(h1!.dir), ran.A).toBe(true)
    for (const id of ['B', 'C', 'G']) expect(ran[id]!.startsWith(h2!.dir), `${id} ran in ${ran[id]}`).toBe(true)
    const side = await readAgentLog(log)
    expect([...side.starts].sort()).toEqual([['A#1', 1], ['B#1', 1], ['C#1', 1], ['G#1', 1]])
    const {rows} = await readTable(plan)
    for (const id of ['A', 'B', 'C', 'G']) expect(rows[id]!.status, id).toBe('completed')
    expect(rows.B!.notes).toContain('host: h2')
    expect(existsSync(join(repo.root, 'G.txt'))).toBe(true)
    await repo.cleanup()
  }, 120_000)
})
