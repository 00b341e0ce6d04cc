// A scripted model server for the real agent CLIs (npm run test:clis). It speaks
// the Anthropic Messages API (Claude Code), the OpenAI Responses API (codex),
// Chat Completions (OpenAI-compatible clients: opencode) and the Gemini API
// (generateContent, streamGenerateContent: Gemini CLI), streaming and not,
// answers the side endpoints the clients call on start, and plays one script
// per agent: the script is chosen by a `mdplan-script:NAME` marker anywhere in
// the request (the agent's prompt carries it, and a resumed conversation still
// holds it). Each step answers one request that offers tools; requests without
// tools (titles, summaries) get a short text and do not advance the script.
//
// A step is {text?, calls?: [{write: {path, content}} | {read: path} |
// {edit: {path, old, new}} | {shell: 'cmd'}], delayMs?, held?, fault?,
// retryAfter?, repeat?}. `held` is a promise the answer waits for (the test
// lets it go when it has done what must happen first). fault: 401, 429 (with retry-after), 503, 529, or 'drop' (the
// stream ends mid-answer). `repeat` keeps the step for every later request.
// Every request is recorded (method, path, api, script, step, body, and the
// usage the answer reported: `billed(name)` sums it per script, `billedUsd(name)`
// prices it by the model the request named, at scripts/clis/prices.js).
//
// `quota: {requests, resetInMs, wholeMinute?}` is the account's quota: after
// `requests` scripted requests it runs out, and every scripted request until
// the reset (now + resetInMs, rounded up to a whole minute with wholeMinute)
// gets the provider's quota answer (quota-answer.js), recorded as `limited`
// and playing no step; after the reset the account serves again.
import {EventEmitter} from 'node:events'
import {createServer} from 'node:http'
import {anthropicBlocks, anthropicMessage, anthropicStream} from './anthropic-stream.js'
import {chatStream} from './chat-stream.js'
import {pricePerMillion} from './prices.js'
import {geminiResponse, geminiStream} from './gemini-stream.js'
import {quotaAnswer} from './quota-answer.js'
import {responsesStream} from './responses-stream.js'
import {toolCalls, toolNames} from './tool-calls.js'

const marker = /mdplan-script:([A-Za-z0-9_-]+)/

export async function startModelServer(scripts = {}, {quota} = {}) {
  const account = {served: 0, resetAt: undefined}
  const cursors = new Map()
  const requests = []
  const events = new EventEmitter()
  const sockets = new Set()
  let counter = 0

  const server = createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      body = undefined
    }
    const path = (req.url ?? '/').split('?')[0]
    const api = path.endsWith('/messages')
      ? 'anthropic'
      : path.endsWith('/responses')
        ? 'responses'
        : path.endsWith('/chat/completions')
          ? 'chat'
          : /:(?:stream)?generateContent$/i.test(path)
            ? 'gemini'
            : 'other'
    const record = {n: ++counter, at: Date.now(), method: req.method, path: req.url, api, body, script: undefined, step: undefined, fault: undefined}
    requests.push(record)
    try {
      await answer(record, req, res)
    } catch (error) {
      record.error = String(error?.message ?? error)
      if (!res.headersSent) json(res, 500, {error: {type: 'api_error', message: `model server: ${record.error}`}})
      else res.destroy()
    }
    events.emit('request', record)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function answer(record, req, res) {
    const {api, body} = record
    if (api === 'other') return sideEndpoint(record, req, res)
    const model = body?.model ?? /models\/([^:/]+):/.exec(record.path)?.[1] ?? 'mock-model'
    const id = `mdplan${record.n}`
    record.model = model
    // Large enough that the clients' own cost figures show in cents.
    const usage = {input: 20_000 + record.n, output: 1_000}
    const name = marker.exec(JSON.stringify(body ?? {}))?.[1]
    record.script = name
    const names = toolNames(body ?? {})
    const stream = body?.stream === true || /:streamGenerateContent/i.test(record.path)
    // No script, or a side request (no tools offered): a short plain answer.
    const script = name === undefined ? undefined : scripts[name]
    if (!script || names.length === 0) return play(res, api, {id, model, usage: billed(record, usage), stream, step: {text: 'mdplan test'}, calls: [], names})
    if (quota && outOfQuota(record)) {
      const answer = quotaAnswer(api, account.resetAt)
      return json(res, answer.status, answer.body, answer.headers)
    }
    const index = cursors.get(name) ?? 0
    const step = script[Math.min(index, script.length - 1)] ?? {text: 'RESULT: ERROR\nDescription: the model script is empty'}
    if (index >= script.length && !step.repeat) {
      record.step = index
      return play(res, api, {id, model, usage, stream, names, step: {text: `RESULT: ERROR\nDescription: model script ${name} exhausted after ${script.length} steps`}, calls: []})
    }
    if (!step.repeat) cursors.set(name, index + 1)
    record.step = index
    record.fault = step.fault
    events.emit('step', record)
    if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs))
    if (step.held) await step.held
    if (step.fault !== undefined && step.fault !== 'drop') return fault(res, api, step)
    const calls = toolCalls(step.calls ?? [], names)
    return play(res, api, {id, model, usage: step.fault === 'drop' ? usage : billed(record, usage), stream, step, calls, names, drop: step.fault === 'drop'})
  }

  /** Whether the account's quota refuses this scripted request (it runs out on the one past `quota.requests`). */
  function outOfQuota(record) {
    const now = Date.now()
    if (account.resetAt === undefined && account.served >= quota.requests) {
      const at = now + quota.resetInMs
      account.resetAt = quota.wholeMinute ? Math.ceil(at / 60_000) * 60_000 : at
      account.limitedAt = now
    }
    if (account.resetAt !== undefined && now < account.resetAt) {
      record.limited = true
      record.resetAt = account.resetAt
      events.emit('limit', record)
      return true
    }
    account.served++
    return false
  }

  /** The requests of script `name` from `since` on whose answers reported usage. */
  const billedTo = (name, since) => requests.filter((record) => record.script === name && record.usage && record.at >= since)

  return {
    url: `http://127.0.0.1:${await listen(server)}`,
    requests,
    events,
    /** The account's quota: {served, resetAt, limitedAt} (resetAt once it ran out). */
    account,
    /** The tokens the server's answers reported for script `name` (requests from `since` on): {input, output}. */
    billed: (name, since = 0) =>
      billedTo(name, since).reduce((sum, record) => ({input: sum.input + record.usage.input, output: sum.output + record.usage.output}), {input: 0, output: 0}),
    /** The dollars of the same bill, each request priced by its model (NaN where a model has no price). */
    billedUsd: (name, since = 0) =>
      billedTo(name, since).reduce((sum, record) => {
        const price = pricePerMillion[record.model]
        return price ? sum + (record.usage.input * price.input + record.usage.output * price.output) / 1e6 : Number.NaN
      }, 0),
    /** Requests that played a step of `name` (faults included). */
    stepsOf: (name) => requests.filter((record) => record.script === name && record.step !== undefined),
    /** Resolves with the first request (past or future) that matches. */
    waitFor(predicate, what = 'a request') {
      const found = requests.find(predicate)
      if (found) return Promise.resolve(found)
      return new Promise((resolve) => {
        const onStep = (record) => {
          if (!predicate(record)) return
          events.off('step', onStep)
          events.off('request', onStep)
          resolve(record)
        }
        events.on('step', onStep)
        events.on('request', onStep)
      })
    },
    setScript(name, steps) {
      scripts[name] = steps
      cursors.delete(name)
    },
    close() {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

/** The usage an answer reports, recorded as billed. */
function billed(record, usage) {
  record.usage = usage
  return usage
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)))
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, {'content-type': 'application/json', ...headers})
  res.end(JSON.stringify(value))
}

function play(res, api, answer) {
  const {id, model, usage, stream, step, calls, drop} = answer
  if (!stream) {
    if (api === 'gemini') return json(res, 200, geminiResponse({model, step, calls, usage}))
    if (api === 'anthropic') return json(res, 200, anthropicMessage({id, model, blocks: anthropicBlocks(step, calls), usage}))
    if (api === 'chat') {
      const message = {role: 'assistant', content: step.text ?? null}
      if (calls.length > 0) message.tool_calls = calls.map((call, index) => ({id: `call_${id}_${index}`, type: 'function', function: {name: call.name, arguments: JSON.stringify(call.input)}}))
      return json(res, 200, {id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model, choices: [{index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop'}], usage: {prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output}})
    }
    return json(res, 200, {id, object: 'response', status: 'completed', model, output: [{type: 'message', role: 'assistant', content: [{type: 'output_text', text: step.text ?? ''}]}], usage: {input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output}})
  }
  const events =
    api === 'anthropic'
      ? anthropicStream({id, model, blocks: anthropicBlocks(step, calls), usage})
      : api === 'chat'
        ? chatStream({id, model, step, calls, usage})
        : api === 'gemini'
          ? geminiStream({model, step, calls, usage})
          : responsesStream({id, model, step, calls, usage})
  res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
  if (drop) {
    // Half the answer, then the connection is cut: no message_stop, no [DONE], no response.completed.
    res.write(events.slice(0, Math.max(1, Math.floor(events.length / 2))).join(''))
    setTimeout(() => res.socket?.destroy(), 50)
    return
  }
  res.end(events.join(''))
}

const faultBodies = {
  401: ['authentication_error', 'invalid x-api-key'],
  429: ['rate_limit_error', 'This request would exceed the rate limit for your organization'],
  503: ['api_error', 'Service unavailable'],
  529: ['overloaded_error', 'Overloaded']
}

function fault(res, api, step) {
  const [type, message] = faultBodies[step.fault] ?? ['api_error', `scripted fault ${step.fault}`]
  const headers = step.fault === 429 || step.retryAfter !== undefined ? {'retry-after': String(step.retryAfter ?? 1)} : {}
  if (api === 'anthropic') return json(res, step.fault, {type: 'error', error: {type, message}}, headers)
  if (api === 'gemini') {
    const status = {401: 'UNAUTHENTICATED', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE'}[step.fault] ?? 'INTERNAL'
    return json(res, step.fault, {error: {code: step.fault, message, status}}, headers)
  }
  const code = step.fault === 401 ? 'invalid_api_key' : step.fault === 429 ? 'rate_limit_exceeded' : 'server_error'
  return json(res, step.fault, {error: {message, type: step.fault === 401 ? 'invalid_request_error' : type, code}}, headers)
}

/** What the clients ask besides the model: a health check, token counts, model lists. Unknown paths are recorded and get `{}`. */
function sideEndpoint(record, req, res) {
  const path = record.path.split('?')[0]
  if (req.method === 'HEAD') return res.writeHead(200).end()
  if (path.endsWith('/messages/count_tokens')) return json(res, 200, {input_tokens: 100})
  if (/:countTokens$/i.test(path)) return json(res, 200, {totalTokens: 100})
  if (path.endsWith('/models')) {
    return json(res, 200, {object: 'list', data: [{id: 'mock-model', object: 'model', type: 'model', display_name: 'Mock', created: 0, owned_by: 'mdplan'}], models: [], has_more: false})
  }
  record.unknown = true
  return json(res, 200, {})
}
