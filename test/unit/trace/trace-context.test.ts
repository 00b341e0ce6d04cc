import {describe, expect, it} from 'vitest'
import {formatTraceparent, parseTraceparent} from '../../../src/trace/trace-context.js'
import {loadOtel} from '../../../src/trace/load-otel.js'
import {startTracing} from '../../../src/trace/start-tracing.js'

describe('traceparent', () => {
  it('reads a W3C traceparent and writes it back the same', () => {
    const text = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const context = parseTraceparent(text)
    expect(context).toEqual({traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1})
    expect(formatTraceparent(context!)).toBe(text)
  })

  it('takes nothing it cannot trust: another version, zero ids, upper case, a short id, nothing', () => {
    for (const text of ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', '', undefined]) {
      expect(parseTraceparent(text), String(text)).toBeUndefined()
    }
  })
})

describe('tracing, on or off', () => {
  const absent = () => loadOtel(() => {
    throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), {code: 'MODULE_NOT_FOUND'})
  }, '/home/u/src/mdplan/')

  it('is off without an OTLP endpoint, or when the environment turns the SDK or its traces off', () => {
    const warnings: string[] = []
    const loads: string[] = []
    const load = () => (loads.push('loaded'), absent())
    for (const env of [{}, {OTEL_EXPORTER_OTLP_ENDPOINT: ''}, {OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true'}, {OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x', OTEL_TRACES_EXPORTER: 'none'}]) {
      expect(startTracing(env, (message) => warnings.push(message), load)).toBeUndefined()
    }
    expect(loads).toEqual([])
    expect(warnings).toEqual([])
  })

  it('without the SDK installed, the run goes on untraced and says how to install it for this install', () => {
    const warnings: string[] = []
    expect(startTracing({OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318'}, (message) => warnings.push(message), absent)).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT is set, and the run is not traced: tracing needs the OpenTelemetry SDK/)
    expect(warnings[0]).toContain('run `npm install` in /home/u/src/mdplan (a checkout of mdplan has them as dev dependencies)')
  })

  it('with the SDK here, loads it: a traced run has a tracer and hands each attempt a TRACEPARENT', async () => {
    const tracing = startTracing({OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9'}, () => {})
    expect(tracing).toBeDefined()
    const env = tracing!.traceEnv({agent: 'A', attempt: 1, runner: 'shell'})
    expect(parseTraceparent(env.TRACEPARENT)).toBeDefined()
    expect(tracing!.traceEnv({agent: 'B', attempt: 1, runner: 'shell'}).TRACEPARENT).not.toBe(env.TRACEPARENT)
    await tracing!.shutdown(1)
  })
})
