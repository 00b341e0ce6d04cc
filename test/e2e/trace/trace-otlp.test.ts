import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'

// A run's trace, as an OTLP collector receives it (OTLP/HTTP JSON, what the SDK's exporter sends): an
// in-process receiver on 127.0.0.1, a plan in a real repository, and the agents' own record of the
// TRACEPARENT each was given.

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  status?: {code?: number; message?: string}
  attributes: Array<{key: string; value: {stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean}}>
}

const received: OtlpSpan[] = []
const paths: string[] = []
let server: Server
let endpoint: string

beforeAll(async () => {
  await isolateGitConfig()
  server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      paths.push(request.url ?? '')
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {resourceSpans: Array<{scopeSpans: Array<{spans: OtlpSpan[]}>}>}
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans)
      response.writeHead(200, {'content-type': 'application/json'}).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

function attribute(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  if (!value) return undefined
  if (value.intValue !== undefined) return Number(value.intValue)
  return value.stringValue ?? value.doubleValue ?? value.boolValue
}

const record = 'echo "$MDPLAN_AGENT $MDPLAN_ATTEMPT $TRACEPARENT" >> "$LOG"'

describe('a traced run (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('sends one span per attempt under the run, each the TRACEPARENT its agent got, with its attributes', async () => {
    const repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    const plan = shellPlan({
      A: {script: `${record}\necho 'USAGE: tokens=1500 usd=0.02'\necho a > a.txt`, creates: ['a.txt']},
      B: {deps: ['A'], script: `${record}\necho b > b.txt`, creates: ['b.txt']},
      // Fails its first attempt, then completes.
      C: {script: `${record}\nif [ "$MDPLAN_ATTEMPT" = 1 ]; then exit 3; fi\necho c > c.txt`, creates: ['c.txt']}
    })
    await repo.commit('plan', {'plan.md': plan})
    // mdplan started by something traced (a CI job, a parent agent): its run nests under that span.
    const parent = {traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7'}
    const result = await runCli(['run', 'plan.md', '--max-attempts', '2'], {
      cwd: repo.root,
      env: {LOG: log, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, TRACEPARENT: `00-${parent.traceId}-${parent.spanId}-01`}
    })
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).not.toContain('trace:')

    // The agents' side: one line per attempt, each with a traceparent of the run's trace.
    const lines = (await readFile(log, 'utf8')).trim().split('\n').map((line) => line.split(' '))
    expect(lines.map(([agent, attempt]) => `${agent}#${attempt}`).sort()).toEqual(['A#1', 'B#1', 'C#1', 'C#2'])
    const given = new Map(lines.map(([agent, attempt, traceparent]) => [`${agent}#${attempt}`, traceparent!]))

    expect(paths.every((path) => path === '/v1/traces')).toBe(true)
    const runs = received.filter((span) => span.name === 'mdplan run')
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run.traceId).toBe(parent.traceId)
    expect(run.parentSpanId).toBe(parent.spanId)
    expect(attribute(run, 'mdplan.exit_code')).toBe(0)
    expect(attribute(run, 'mdplan.agents')).toBe(3)

    const attempts = received.filter((span) => span.name.startsWith('agent '))
    expect(attempts.map((span) => `${attribute(span, 'mdplan.agent')}#${attribute(span, 'mdplan.attempt')}`).sort()).toEqual(['A#1', 'B#1', 'C#1', 'C#2'])
    for (const span of attempts) {
      const key = `${attribute(span, 'mdplan.agent')}#${attribute(span, 'mdplan.attempt')}`
      expect(given.get(key)).toBe(`00-${parent.traceId}-${span.spanId}-01`)
      expect(span.traceId).toBe(parent.traceId)
      expect(span.parentSpanId).toBe(run.spanId)
      expect(attribute(span, 'mdplan.runner')).toBe('shell')
    }
    const byKey = (key: string) => attempts.find((span) => `${attribute(span, 'mdplan.agent')}#${attribute(span, 'mdplan.attempt')}` === key)!
    expect(attribute(byKey('A#1'), 'mdplan.tokens')).toBe(1500)
    expect(attribute(byKey('A#1'), 'mdplan.cost_usd')).toBe(0.02)
    expect(attribute(byKey('C#1'), 'mdplan.outcome')).toBe('failed')
    expect(byKey('C#1').status?.code).toBe(2)
    expect(attribute(byKey('C#2'), 'mdplan.outcome')).toBe('completed')
  })

  it('runs untraced, and says where it could not send the trace, when nothing listens there', async () => {
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: 'echo a > a.txt', creates: ['a.txt']}})})
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root, env: {OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TIMEOUT: '2000'}})
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/trace: could not send the run's trace to http:\/\/127\.0\.0\.1:9/)
  })
})
