import {spawn, type ChildProcess} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import http, {type ServerResponse} from 'node:http'
import {mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

interface Pod {
  name: string
  job: string
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed'
  reason?: string
  log: Buffer[]
  followers: Set<ServerResponse>
  child?: ChildProcess
  created: string
}

type Json = Record<string, any>

/**
 * An in-process fake of the Kubernetes API surface mdplan uses, driven by the
 * real client: Jobs (create, 409 on a second create, read, list by label,
 * delete), ConfigMaps and Secrets, pods listed by `job-name`, a pod's log
 * (followed), and SelfSubjectAccessReview. A tiny "kubelet" runs each Job's
 * container command here as a process (ConfigMap volumes written to a
 * folder, `envFrom` Secrets as environment). Faults a test can set:
 * `holdMs` (pods stay Pending), `loseAnswer` (the next N Job creates are
 * applied but answered with a dropped connection), `evict` (a pod whose Job's
 * key contains the text is evicted as it starts while its process runs on:
 * a zombie), `deny` (access reviews say no). Time the cluster's controllers
 * act on: `passTime(seconds)` runs the TTL controller as if that long went by
 * since each Job finished (a Job with `ttlSecondsAfterFinished` no longer than
 * that is deleted, its pods and their logs with it); `removePods(job)` is the
 * garbage collection of a finished Job's pods.
 */
export async function startFakeK8s() {
  const jobs = new Map<string, Json>()
  const configMaps = new Map<string, Json>()
  const secrets = new Map<string, Json>()
  const pods = new Map<string, Pod>()
  const faults = {holdMs: 0, loseAnswer: 0, evict: '', deny: false}
  const created: string[] = []
  const deleted: string[] = []

  const startPod = (ns: string, job: Json): void => {
    const name = `${job.metadata.name}-${randomUUID().slice(0, 5)}`
    const pod: Pod = {name, job: job.metadata.name, phase: 'Pending', log: [], followers: new Set(), created: new Date().toISOString()}
    pods.set(name, pod)
    setTimeout(() => void run(ns, job, pod), faults.holdMs)
  }
  const run = async (ns: string, job: Json, pod: Pod): Promise<void> => {
    if (!jobs.has(job.metadata.name)) return
    const spec = job.spec.template.spec
    const container = spec.containers[0]
    const dir = await mkdtemp(join(tmpdir(), 'fake-pod-'))
    const env: Record<string, string> = {PATH: process.env.PATH!, HOME: process.env.HOME!, TMPDIR: dir, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL ?? '', GIT_CONFIG_NOSYSTEM: '1'}
    for (const from of container.envFrom ?? []) {
      const secret = secrets.get(from.secretRef.name)
      if (!secret) return fail(pod, job, 'CreateContainerConfigError')
      Object.assign(env, secret.stringData ?? {}, Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()])))
    }
    for (const item of container.env ?? []) env[item.name] = item.value
    // The ConfigMap volume, "mounted": its files in a folder the container is told about.
    const volume = spec.volumes?.[0]
    if (volume) {
      const map = configMaps.get(volume.configMap.name)
      if (!map) return fail(pod, job, 'ContainerCreating')
      const mount = join(dir, 'in')
      await import('node:fs/promises').then((fs) => fs.mkdir(mount))
      for (const [file, data] of Object.entries(map.binaryData ?? {})) await writeFile(join(mount, file), Buffer.from(String(data), 'base64'))
      env.MDPLAN_IN = mount
    }
    // Deleted while its pod was being set up: nothing runs.
    if (!jobs.has(job.metadata.name)) return
    pod.phase = 'Running'
    job.status = {active: 1, startTime: new Date().toISOString()}
    const child = spawn(container.command[0], [...container.command.slice(1), ...(container.args ?? [])], {cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe']})
    pod.child = child
    const append = (chunk: Buffer): void => {
      pod.log.push(chunk)
      if (pod.reason !== 'Evicted') for (const res of pod.followers) res.write(chunk)
    }
    child.stdout!.on('data', append)
    child.stderr!.on('data', append)
    if (faults.evict && String(job.metadata.annotations?.['mdplan/key'] ?? '').includes(faults.evict)) {
      // The node is cut off: the control plane marks the pod failed, its process runs on and its log is unreachable.
      setTimeout(() => fail(pod, job, 'Evicted'), 200)
    }
    child.on('close', (code) => {
      if (pod.reason === 'Evicted') return
      pod.phase = code === 0 ? 'Succeeded' : 'Failed'
      job.status = code === 0 ? {succeeded: 1, conditions: [{type: 'Complete', status: 'True'}]} : {failed: 1, conditions: [{type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded'}]}
      for (const res of pod.followers) res.end()
      pod.followers.clear()
    })
  }
  const fail = (pod: Pod, job: Json, reason: string): void => {
    pod.phase = 'Failed'
    pod.reason = reason
    job.status = {failed: 1, conditions: [{type: 'Failed', status: 'True', reason: reason === 'Evicted' ? 'PodFailurePolicy' : reason}]}
    for (const res of pod.followers) res.end()
    pod.followers.clear()
  }
  const kill = (pod: Pod): void => {
    try {
      if (pod.child?.pid) process.kill(-pod.child.pid, 'SIGKILL')
    } catch {
      // Ended already.
    }
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x')
    let body = ''
    for await (const chunk of req) body += chunk
    const send = (code: number, obj: unknown): void => {
      res.writeHead(code, {'content-type': 'application/json'})
      res.end(JSON.stringify(obj))
    }
    const status = (code: number, reason: string, message: string) => send(code, {kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code, message})
    const selector = (item: Json): boolean => {
      const sel = url.searchParams.get('labelSelector')
      if (!sel) return true
      return sel.split(',').every((term) => {
        const [k, v] = term.split('=')
        return item.metadata?.labels?.[k!] === v
      })
    }
    const path = url.pathname
    let m: RegExpMatchArray | null
    if (req.method === 'POST' && path === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
      const review = JSON.parse(body)
      return send(201, {...review, status: {allowed: !faults.deny}})
    }
    if ((m = path.match(/^\/api\/v1\/namespaces\/([^/]+)\/(configmaps|secrets)(?:\/([^/]+))?$/))) {
      const store = m[2] === 'configmaps' ? configMaps : secrets
      if (req.method === 'POST') {
        const item = JSON.parse(body)
        if (store.has(item.metadata.name)) return status(409, 'AlreadyExists', `${m[2]} "${item.metadata.name}" already exists`)
        store.set(item.metadata.name, item)
        return send(201, item)
      }
      if (req.method === 'DELETE' && m[3]) return store.delete(m[3]) ? send(200, {kind: 'Status', status: 'Success'}) : status(404, 'NotFound', `${m[2]} "${m[3]}" not found`)
    }
    if ((m = path.match(/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs$/))) {
      if (req.method === 'POST') {
        const job = JSON.parse(body)
        const name = job.metadata.name
        if (jobs.has(name)) return status(409, 'AlreadyExists', `jobs.batch "${name}" already exists`)
        job.metadata.uid = randomUUID()
        job.metadata.namespace = m[1]
        job.status = {}
        jobs.set(name, job)
        created.push(name)
        startPod(m[1]!, job)
        if (faults.loseAnswer > 0) {
          faults.loseAnswer--
          return res.destroy()
        }
        return send(201, job)
      }
      return send(200, {kind: 'JobList', apiVersion: 'batch/v1', metadata: {}, items: [...jobs.values()].filter(selector)})
    }
    if ((m = path.match(/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs\/([^/]+)$/))) {
      const job = jobs.get(m[2]!)
      if (!job) return status(404, 'NotFound', `jobs.batch "${m[2]}" not found`)
      if (req.method === 'DELETE') {
        jobs.delete(m[2]!)
        deleted.push(m[2]!)
        for (const pod of pods.values()) if (pod.job === m[2]) {
          kill(pod)
          for (const r of pod.followers) r.end()
          pods.delete(pod.name)
        }
        return send(200, {kind: 'Status', status: 'Success'})
      }
      return send(200, job)
    }
    if ((m = path.match(/^\/api\/v1\/namespaces\/([^/]+)\/pods$/))) {
      const wanted = /job-name=([^,]+)/.exec(url.searchParams.get('labelSelector') ?? '')?.[1]
      const items = [...pods.values()].filter((pod) => !wanted || pod.job === wanted).map((pod) => ({
        metadata: {name: pod.name, namespace: m![1], creationTimestamp: pod.created, labels: {'job-name': pod.job, 'batch.kubernetes.io/job-name': pod.job}},
        status: {phase: pod.phase, ...(pod.reason ? {reason: pod.reason} : {})}
      }))
      return send(200, {kind: 'PodList', apiVersion: 'v1', metadata: {}, items})
    }
    if ((m = path.match(/^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/))) {
      const pod = pods.get(m[2]!)
      if (!pod) return status(404, 'NotFound', `pods "${m[2]}" not found`)
      res.writeHead(200, {'content-type': 'text/plain'})
      // The API server sends a log stream's headers at once, output or not (Node would hold them until the first byte).
      res.flushHeaders()
      for (const chunk of pod.log) res.write(chunk)
      if (url.searchParams.get('follow') === 'true' && pod.phase === 'Running') {
        pod.followers.add(res)
        res.on('close', () => pod.followers.delete(res))
        return
      }
      return res.end()
    }
    status(404, 'NotFound', `fake: ${req.method} ${path}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as {port: number}).port
  const dir = await mkdtemp(join(tmpdir(), 'fake-k8s-'))
  const kubeconfig = join(dir, 'config')
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'fake', cluster: {server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true}}],
      users: [{name: 'u', user: {token: 't'}}],
      contexts: [{name: 'fake', context: {cluster: 'fake', user: 'u', namespace: 'agents'}}],
      'current-context': 'fake'
    })
  )
  return {
    kubeconfig,
    faults,
    jobs,
    pods,
    configMaps,
    secrets,
    created,
    deleted,
    passTime(seconds: number): void {
      for (const [name, job] of jobs) {
        const ttl = job.spec?.ttlSecondsAfterFinished
        const finished = job.status?.succeeded || job.status?.failed
        if (!finished || typeof ttl !== 'number' || ttl > seconds) continue
        jobs.delete(name)
        for (const pod of pods.values()) if (pod.job === name) pods.delete(pod.name)
      }
    },
    removePods(job: string): void {
      for (const pod of pods.values()) if (pod.job === job) pods.delete(pod.name)
    },
    async close() {
      for (const pod of pods.values()) {
        kill(pod)
        for (const r of pod.followers) r.end()
      }
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
