import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {startFakeK8s} from '../../helpers/fake-k8s.js'
import {kubernetesName} from '../../../src/hosts/kubernetes/kubernetes-name.js'

beforeAll(isolateGitConfig)

let fake: Awaited<ReturnType<typeof startFakeK8s>> | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-k8s-log-')), 'agents.log')
}

async function k8sPlan(log: string, agents: Record<string, {deps?: string[]; sleep?: number; extra?: string}>, host = '{type: kubernetes, image: localhost/agent:1, slots: 4, cpus: 1, memory: 1Gi}') {
  const repo = await tempRepo()
  const spec = Object.fromEntries(
    Object.entries(agents).map(([id, a]) => [
      id,
      {deps: a.deps, creates: [`out/${id}.txt`], script: logged(log, `sleep ${a.sleep ?? 0.05}\nmkdir -p out\necho "${id} $MDPLAN_ATTEMPT" > out/${id}.txt${a.extra ? `\n${a.extra}` : ''}`)}
    ])
  )
  const frontMatter = ['concurrency: 4', 'commit: true', 'hosts:', `  kube: ${host}`, 'host: kube'].join('\n')
  await repo.commit('plan', {'plan.md': shellPlan(spec, {frontMatter})})
  return {repo, plan: join(repo.root, 'plan.md')}
}

const env = (extra: Record<string, string> = {}) => ({KUBECONFIG: fake!.kubeconfig, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', ...extra})

describe('kubernetesName', () => {
  it('is a DNS-1123 label of at most 63 characters, the same for the same key, different for keys that differ only in case', () => {
    const keys = ['mdplan4-plan-A-a1-3f9c1a', 'mdplan4-plan-a-a1-3f9c1a', `mdplan-${'very-long-plan-name-'.repeat(5)}-Agent_1-a12-abcdef`, 'mdplan-p-x-a1-000000']
    const names = keys.map(kubernetesName)
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/)
    expect(new Set(names).size).toBe(keys.length)
    expect(keys.map(kubernetesName)).toEqual(names)
    expect(names[3]).toBe('mdplan-p-x-a1-000000')
  })
})

describe('agents as Kubernetes Jobs (the real client against an in-process fake API server)', () => {
  it('names a Job per attempt (DNS-1123), engine retries off, credentials from a Secret: a DAG once each, all work merged', async () => {
    fake = await startFakeK8s()
    fake.faults.holdMs = 300
    const log = await logFile()
    const {repo, plan} = await k8sPlan(
      log,
      {A: {extra: `printf 'token %s\\n' "$MDPLAN_TEST_TOKEN" >> '${log}'`}, B: {deps: ['A']}, C: {deps: ['A']}, D: {deps: ['B', 'C']}},
      '{type: kubernetes, image: localhost/agent:1, slots: 4, cpus: 1, memory: 1Gi, env: [MDPLAN_TEST_TOKEN]}'
    )
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env({MDPLAN_TEST_TOKEN: 's3cret-value'})})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1', 'D#1'])
    expect(side.lines).toContain('token s3cret-value')
    const {rows, text} = await readTable(plan)
    expect(text).not.toContain('s3cret')
    expect(result.all).not.toContain('s3cret')
    for (const id of ['A', 'B', 'C', 'D']) {
      expect(rows[id]!.status).toBe('completed')
      expect(rows[id]!.notes).toMatch(/kubernetes: agents\/mdplan13-plan-[0-9a-f]{8}-[a-z]-a1-[0-9a-f]{6}-[0-9a-f]{8}/)
      expect(rows[id]!.notes).toMatch(/queued: \d+(ms|s)/)
      expect(await repo.read(`out/${id}.txt`)).toBe(`${id} 1\n`)
    }
    expect(fake.created).toHaveLength(4)
    // Every Job, as the API server saw it: the engine's retries off, labelled, and no credential in its spec.
    const manifest = JSON.stringify(fake.created)
    expect(manifest).not.toContain('s3cret')
    // Collected Jobs are deleted (with their ConfigMaps and Secrets).
    expect(fake.deleted.sort()).toEqual([...fake.created].sort())
    expect(fake.jobs.size + fake.configMaps.size + fake.secrets.size).toBe(0)
    await repo.cleanup()
  }, 60_000)

  it('the Job spec: backoffLimit 0, restartPolicy Never, podReplacementPolicy Failed, no TTL, labels, envFrom, resources', async () => {
    fake = await startFakeK8s()
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 30}}, '{type: kubernetes, image: localhost/agent:1, cpus: 2, memory: 2Gi, service-account: agents, secret: team-keys, env: [MDPLAN_TEST_TOKEN]}')
    fake.secrets.set('team-keys', {metadata: {name: 'team-keys'}, stringData: {}})
    const run = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env({MDPLAN_TEST_TOKEN: 's3cret-value'})})
    const early = run.then((r) => r.all)
    await Promise.race([waitFor(() => fake!.jobs.size === 1), early.then((all) => Promise.reject(new Error(`the run ended: ${all}`)))])
    const job = [...fake.jobs.values()][0]!
    // Right after the create, while the pod is looked up: Ctrl-C must still end the run.
    run.kill('SIGINT')
    const timer = setTimeout(() => run.kill('SIGKILL'), 15_000)
    const ended = await run
    clearTimeout(timer)
    expect(ended.exitCode, ended.all).toBe(130)
    expect(job.spec.backoffLimit).toBe(0)
    expect(job.spec.podReplacementPolicy).toBe('Failed')
    // The pod's log is the only copy of the result: the Job lives until a run has recorded its outcome.
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined()
    expect(job.spec.template.spec.restartPolicy).toBe('Never')
    expect(job.spec.template.spec.serviceAccountName).toBe('agents')
    expect(job.metadata.labels).toMatchObject({'mdplan/plan': 'plan', 'mdplan/agent': 'A', 'app.kubernetes.io/managed-by': 'mdplan'})
    expect(job.metadata.name).toBe(kubernetesName(job.metadata.annotations['mdplan/key']))
    const container = job.spec.template.spec.containers[0]
    expect(container.resources).toEqual({requests: {cpu: '2', memory: '2Gi'}})
    expect(container.envFrom).toEqual([{secretRef: {name: `${job.metadata.name}-env`}}, {secretRef: {name: 'team-keys'}}])
    expect(JSON.stringify(job)).not.toContain('s3cret')
    await repo.cleanup()
  }, 60_000)

  it('a create whose answer is lost: created again, a 409, found and attached; the agent runs once', async () => {
    fake = await startFakeK8s()
    fake.faults.loseAnswer = 1
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {}})
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    expect([...(await readAgentLog(log)).starts]).toEqual([['A#1', 1]])
    expect(fake.created).toHaveLength(1)
    expect(await repo.read('out/A.txt')).toBe('A 1\n')
    await repo.cleanup()
  }, 60_000)

  it('coordinator SIGKILL, then a rerun: the Jobs are found by name (409), their logs replayed, no relaunch', async () => {
    fake = await startFakeK8s()
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 2}, B: {sleep: 2}, C: {deps: ['A', 'B']}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    await waitForTable(plan, (rows) => /kubernetes: /.test(rows.A!.notes) && /kubernetes: /.test(rows.B!.notes), 30_000)
    await waitFor(async () => (await readAgentLog(log)).starts.size === 2)
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1'])
    expect(fake.created).toHaveLength(3)
    for (const id of ['A', 'B', 'C']) expect(await repo.read(`out/${id}.txt`)).toBe(`${id} 1\n`)
    await repo.cleanup()
  }, 60_000)

  // With `ttlSecondsAfterFinished: 86400` the cluster deleted a finished Job (and its log, the only copy of its
  // result) a day after it ended: a coordinator away longer found nothing under the key and ran the agent again.
  it('a coordinator away for more than a day after its agent finished: the rerun still finds the Job, collects its result, the agent ran once; the Job goes once the completion is in the plan', async () => {
    fake = await startFakeK8s()
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 1}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    await waitFor(async () => (await readAgentLog(log)).starts.size === 1)
    first.kill('SIGKILL')
    await first
    await waitFor(() => [...fake!.jobs.values()].some((job) => job.status?.succeeded === 1))
    // The cluster's TTL controller, a day and a minute later.
    fake.passTime(86_400 + 60)
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    expect(side.starts).toEqual(new Map([['A#1', 1]]))
    expect(side.unfinished).toEqual([])
    expect(fake.created).toHaveLength(1)
    expect(await repo.read('out/A.txt')).toBe('A 1\n')
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    expect(fake.jobs.size + fake.configMaps.size).toBe(0)
    await repo.cleanup()
  }, 60_000)

  it('a finished Job whose pod the cluster removed (its log with it): the rerun says so as host lost and retries, instead of waiting for a pod forever', async () => {
    fake = await startFakeK8s()
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 1}})
    const first = startCli(['run', plan, '--max-attempts', '2'], {cwd: repo.root, env: env()})
    await waitFor(async () => (await readAgentLog(log)).starts.size === 1)
    first.kill('SIGKILL')
    await first
    await waitFor(() => [...fake!.jobs.values()].some((job) => job.status?.succeeded === 1))
    fake.removePods([...fake.jobs.keys()][0]!)
    const second = await runCli(['run', plan, '--max-attempts', '2'], {cwd: repo.root, env: env()})
    expect(second.exitCode, second.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.notes).toMatch(/attempt 1: host lost: kube \(the Job \S+ finished but its pod, whose log held the result, is gone\)/)
    expect(await repo.read('out/A.txt')).toBe('A 2\n')
    await repo.cleanup()
  }, 60_000)

  it('a pod evicted (its node cut off) fails the attempt as host lost; retried under a new Job, the zombie ended and its result never merged', async () => {
    fake = await startFakeK8s()
    fake.faults.evict = '-A-a1-'
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 1.5}})
    const result = await runCli(['run', plan, '--max-attempts', '2'], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.notes).toMatch(/attempt 1: host lost: kube/)
    // The lost Job is deleted as soon as the API answers (at once, here): the zombie is ended, not left to run
    // on beside the retry (it used to run to its end).
    expect(fake.deleted).toContain(fake.created[0])
    expect((await readAgentLog(log)).unfinished).toEqual(['A#1'])
    const again = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(again.exitCode, again.all).toBe(0)
    expect(await repo.read('out/A.txt')).toBe('A 2\n')
    const bodies = await repo.git('log', '--format=%B')
    expect(bodies).toMatch(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a2-/)
    expect(bodies).not.toMatch(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a1-/)
    expect([...(await readAgentLog(log)).starts.keys()].sort()).toEqual(['A#1', 'A#2'])
    await repo.cleanup()
  }, 60_000)

  it('Ctrl-C deletes the running Jobs (their pods end) and leaves the rows resumable', async () => {
    fake = await startFakeK8s()
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {sleep: 30}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env()})
    await waitFor(async () => (await readAgentLog(log)).starts.size === 1)
    first.kill('SIGINT')
    const stopped = await first
    expect(stopped.exitCode, stopped.all).toBe(130)
    expect(fake.deleted).toEqual(fake.created)
    expect(fake.jobs.size).toBe(0)
    expect((await readAgentLog(log)).unfinished).toEqual(['A#1'])
    expect((await readTable(plan)).rows.A!.status).toBe('in_progress')
    await repo.cleanup()
  }, 60_000)

  it('preflight: a namespace it may not write is one line with the fix, exit 2, the plan untouched', async () => {
    fake = await startFakeK8s()
    fake.faults.deny = true
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {}})
    const before = (await readTable(plan)).text
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/host kube \(kubernetes\): may not create jobs in namespace agents; ask for a Role/)
    expect((await readTable(plan)).text).toBe(before)
    expect(fake.created).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('preflight: an API server that does not answer names the kubectl command to try', async () => {
    fake = await startFakeK8s()
    const kubeconfig = fake.kubeconfig
    await fake.close()
    fake = undefined
    const log = await logFile()
    const {repo, plan} = await k8sPlan(log, {A: {}})
    const result = await runCli(['run', plan], {cwd: repo.root, env: {KUBECONFIG: kubeconfig, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/host kube \(kubernetes\): the API server did not answer .*check that `kubectl --context fake -n agents get jobs` works/)
    await repo.cleanup()
  }, 60_000)
})

async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
