import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {runCli} from '../../helpers/run-cli.js'
import {askingAgent, planText, shellAgent, startServe} from './serve-helpers.js'

type Json = any

let stop: Array<() => unknown> = []
afterEach(async () => {
  for (const done of stop) await done()
  stop = []
})

/** A repository whose plan ran once: A asks, B failed, C waits on both, D completed. */
async function ranPlan(): Promise<TempRepo> {
  await isolateGitConfig()
  const repo = await tempRepo({'README.md': '# x\n'})
  const log = join(repo.root, 'agents.log')
  const plan = planText([askingAgent('A', 'Which db?', log, repo.root), shellAgent('B', [], ['echo failing', 'exit 3']), shellAgent('C', ['A', 'B'], ['echo ok']), shellAgent('D', [], ['echo done'])])
  await repo.commit('plan', {'plan.md': plan})
  expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
  stop.push(() => repo.cleanup())
  return repo
}

describe('mdplan serve', () => {
  it('serves the page, the plan as JSON, its DAG and logs; refuses writes without the same origin, and paths it was not named', async () => {
    const repo = await ranPlan()
    const server = await startServe(['plan.md'], repo.root)
    stop.push(() => server.process.kill('SIGTERM'))
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`)
    const page = await fetch(server.base + '/')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await page.text()).toContain('<script src="/page.js"')
    const view: Json = await (await fetch(server.base + '/api/plan?plan=0')).json()
    expect(view.agents.map((agent: {id: string; status: string}) => `${agent.id} ${agent.status}`)).toEqual(['A needs_input', 'B failed', 'C pending', 'D completed'])
    const dag: Json = await (await fetch(server.base + '/api/dag?plan=0')).json()
    expect(dag.nodes).toHaveLength(4)
    expect(dag.edges).toHaveLength(2)
    const log: Json = await (await fetch(server.base + '/api/log?plan=0&agent=A')).json()
    expect(log).toMatchObject({attempts: [1], attempt: 1})
    expect(log.text).toContain('<script>window.pwned=1</script>')
    for (const path of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/api/plan?plan=1', '/api/log?plan=0&agent=../../../etc/passwd', '/plan.md'])
      expect((await fetch(server.base + path)).status, path).toBe(404)
    const before = await repo.read('plan.md')
    const edit = JSON.stringify({plan: 0, agent: 'B', edit: 'retry'})
    const foreign = await fetch(server.base + '/api/edit', {method: 'POST', headers: {origin: 'http://evil.example', 'content-type': 'application/json'}, body: edit})
    expect(foreign.status).toBe(403)
    const none = await fetch(server.base + '/api/answer', {method: 'POST', body: JSON.stringify({plan: 0, agent: 'A', answer: 'sqlite'})})
    expect(none.status).toBe(403)
    expect(await repo.read('plan.md')).toBe(before)
  })

  it('answers a question through the code of mdplan answer, and the next run resumes the agent with it', async () => {
    const repo = await ranPlan()
    const server = await startServe(['.'], repo.root)
    stop.push(() => server.process.kill('SIGTERM'))
    const origin = {origin: server.base, 'content-type': 'application/json'}
    const answered = await fetch(server.base + '/api/answer', {method: 'POST', headers: origin, body: JSON.stringify({plan: 0, agent: 'A', answer: '1'})})
    expect(await answered.json()).toEqual({answered: 'A', text: 'Option 1: sqlite', down: 0})
    expect(await repo.read('plan.md')).toMatch(/- \*\*answer\*\*: 1\n/)
    const again = await fetch(server.base + '/api/answer', {method: 'POST', headers: origin, body: JSON.stringify({plan: 0, agent: 'D', answer: 'x'})})
    expect(again.status).toBe(409)
    await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(await readFile(join(repo.root, 'answer-A.txt'), 'utf8')).toBe('1')
    // Launched twice, counted from its side: asked, then resumed with the answer.
    expect((await readFile(join(repo.root, 'agents.log'), 'utf8')).split('\n').filter((line) => line === 'A')).toHaveLength(2)
  })

  it('re-queue, retry and skip make the bytes of the same hand edit; with a token, a request without it changes nothing', async () => {
    const repo = await ranPlan()
    const server = await startServe(['plan.md', '--host', '0.0.0.0'], repo.root, {MDPLAN_SERVE_TOKEN: 'tok3n'})
    stop.push(() => server.process.kill('SIGTERM'))
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=tok3n`)
    const before = await repo.read('plan.md')
    const post = (body: object, token?: string) =>
      fetch(server.base + '/api/edit', {method: 'POST', headers: {origin: server.base, 'content-type': 'application/json', ...(token ? {'x-mdplan-token': token} : {})}, body: JSON.stringify(body)})
    expect((await fetch(server.base + '/api/plan?plan=0')).status).toBe(403)
    expect((await post({plan: 0, agent: 'B', edit: 'retry'})).status).toBe(403)
    expect((await post({plan: 0, agent: 'B', edit: 'retry'}, 'wrong')).status).toBe(403)
    expect(await repo.read('plan.md')).toBe(before)
    expect((await post({plan: 0, agent: 'B', edit: 'retry'}, 'tok3n')).status).toBe(200)
    expect((await post({plan: 0, agent: 'C', edit: 'skip'}, 'tok3n')).status).toBe(200)
    expect((await post({plan: 0, agent: 'D', edit: 'requeue'}, 'tok3n')).status).toBe(200)
    const byHand = before
      .replace(/^\| B \| failed \|/m, '| B | pending |')
      .replace(/^\| C \| pending \|/m, '| C | completed |')
      .replace(/^\| D \| completed \|/m, '| D | pending |')
    expect(await repo.read('plan.md')).toBe(byHand)
    expect((await post({plan: 0, agent: 'B', edit: 'retry'}, 'tok3n')).status).toBe(409)
  })

  it('approves and sends back work awaiting review through the code of mdplan review: the bytes of the hand edits; token and origin checked', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    stop.push(() => repo.cleanup())
    const gated = (id: string) => shellAgent(id, [], ['echo RESULT: SUCCESS']).replace('- **prompt**', '- **review**: true\n- **prompt**')
    await repo.commit('plan', {'plan.md': planText([gated('A'), gated('E'), shellAgent('B', ['A'], ['echo ok'])])})
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
    const server = await startServe(['plan.md', '--host', '0.0.0.0'], repo.root, {MDPLAN_SERVE_TOKEN: 'tok3n'})
    stop.push(() => server.process.kill('SIGTERM'))
    const before = await repo.read('plan.md')
    const post = (body: object, headers: Record<string, string>) => fetch(server.base + '/api/review', {method: 'POST', headers: {'content-type': 'application/json', ...headers}, body: JSON.stringify(body)})
    const plan = (await (await fetch(server.base + '/api/plan?plan=0', {headers: {'x-mdplan-token': 'tok3n'}})).json()) as Json
    expect(plan.agents.filter((agent: Json) => agent.review).map((agent: Json) => [agent.id, agent.rank])).toEqual([['A', 0], ['E', 0]])
    expect((await post({plan: 0, agent: 'A', decision: 'approve'}, {origin: server.base})).status).toBe(403)
    expect((await post({plan: 0, agent: 'A', decision: 'approve'}, {origin: 'http://evil.example', 'x-mdplan-token': 'tok3n'})).status).toBe(403)
    expect(await repo.read('plan.md')).toBe(before)
    const ok = {origin: server.base, 'x-mdplan-token': 'tok3n'}
    expect((await post({plan: 0, agent: 'A', decision: 'approve'}, ok)).status).toBe(200)
    expect((await post({plan: 0, agent: 'E', decision: 'reject', note: 'use tabs'}, ok)).status).toBe(200)
    const byHand = before.replace(/^\| A \| awaiting_review \|/m, '| A | completed |').replace(/^\| E \| awaiting_review \|(.*)review: waiting \|$/m, '| E | pending |$1review: rejected: use tabs |')
    expect(byHand).not.toBe(before)
    expect(await repo.read('plan.md')).toBe(byHand)
    expect((await post({plan: 0, agent: 'A', decision: 'approve'}, ok)).status).toBe(409)
    expect((await post({plan: 0, agent: 'E', decision: 'reject'}, ok)).status).toBe(400)
  })
})
