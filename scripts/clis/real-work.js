// The real CLIs doing real work under `mdplan run`, against the scripted model
// server: each scenario is a real git repository, a HOME of its own and a
// server of its own, and each check is one line (npm run test:clis).
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {clientEnv} from './client-env.js'
import {gitRepo, mdplan, planText, row, startMdplan} from './mdplan-run.js'
import {startModelServer} from './model-server.js'
import {dollarModel} from './prices.js'
import {sessionStored} from './session-store.js'

// A bound for a CLI that hangs, not a speed target: opencode's steps took 1 m 28-30 s while the scenarios ran side
// by side (33 s alone), at the edge of the 90 s this was.
const agentTimeout = '240s'
const success = (note) => ({text: `Done.\n\nRESULT: SUCCESS\n${note}`})

/** One scenario's world: repository, HOME, server, environment, and the plan's path. */
async function world(client, context, scripts, {retries = true, quota, account = false} = {}) {
  const repo = gitRepo(`mdplan-clis-${client}-`)
  const home = mkdtempSync(join(tmpdir(), `mdplan-clis-home-${client}-`))
  const server = await startModelServer(scripts, {quota})
  const env = clientEnv(client, {home, url: server.url, bin: context.bin, retries, account, sharedCache: context.sharedCache})
  // claude's Write and Edit want absolute paths; codex's apply_patch takes them relative to its folder.
  const path = (file) => (client === 'codex' ? file : join(repo.dir, file))
  const planFile = join(repo.dir, 'plan.md')
  const write = (plan) => {
    writeFileSync(planFile, plan)
    repo.git('add', 'plan.md')
    repo.git('commit', '-q', '-m', 'plan')
  }
  const run = (args = [], limit) => mdplan(['run', 'plan.md', '--agent-timeout', agentTimeout, ...args], {cwd: repo.dir, env, timeoutMs: limit})
  return {repo, home, server, env, path, planFile, write, run, read: (file) => (existsSync(join(repo.dir, file)) ? readFileSync(join(repo.dir, file), 'utf8') : undefined)}
}

const front = (client, extra = {}) => ({runner: client, concurrency: 2, max_attempts: 2, ...extra})

/** A 4-agent DAG (A → B, A → C, B + C → D) creating and editing files through the CLI's own tools; commit: true. */
async function dag(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  const {path} = w
  Object.assign(steps, {
    A: [{text: 'Creating a.txt.', calls: [{write: {path: path('a.txt'), content: 'alpha\n'}}]}, success('wrote a.txt')],
    B: [{calls: [{read: path('a.txt')}]}, {calls: [{edit: {path: path('a.txt'), old: 'alpha', new: 'alpha beta'}}]}, {calls: [{write: {path: path('b.txt'), content: 'bravo\n'}}]}, success('edited a.txt, wrote b.txt')],
    C: [{calls: [{write: {path: path('c.txt'), content: 'gamma\n'}}]}, {calls: [{read: path('c.txt')}]}, {calls: [{edit: {path: path('c.txt'), old: 'gamma', new: 'gamma delta'}}]}, success('wrote c.txt')],
    D: [{calls: [{write: {path: path('d.txt'), content: 'done\n'}}]}, success('wrote d.txt')]
  })
  w.write(
    planText({
      title: `${client} dag`,
      front: front(client, {commit: true}),
      agents: [
        {id: 'A', deps: [], creates: ['a.txt'], prompt: 'Create a.txt. mdplan-script:A'},
        {id: 'B', deps: ['A'], modifies: ['a.txt'], creates: ['b.txt'], prompt: 'Edit a.txt, create b.txt. mdplan-script:B'},
        {id: 'C', deps: ['A'], creates: ['c.txt'], prompt: 'Create and edit c.txt. mdplan-script:C'},
        {id: 'D', deps: ['B', 'C'], creates: ['d.txt'], prompt: 'Create d.txt. mdplan-script:D'}
      ]
    })
  )
  const result = await w.run()
  const rows = Object.fromEntries(['A', 'B', 'C', 'D'].map((id) => [id, row(w.planFile, id)]))
  check('dag: exit 0, all four completed', result.code === 0 && Object.values(rows).every((r) => r.status === 'completed'), result.code === 0 ? '' : tail(result.output))
  check(
    'dag: the work is on disk (written and edited by the CLI)',
    w.read('a.txt') === 'alpha beta\n' && w.read('b.txt') === 'bravo\n' && w.read('c.txt') === 'gamma delta\n' && w.read('d.txt') === 'done\n',
    JSON.stringify({a: w.read('a.txt'), c: w.read('c.txt')})
  )
  const committed = ['a.txt', 'b.txt', 'c.txt', 'd.txt'].every((file) => w.repo.git('log', '--format=%H', '--', file).trim() !== '')
  const clean = w.repo.git('status', '--porcelain', '--', 'a.txt', 'b.txt', 'c.txt', 'd.txt').trim() === ''
  const commits = w.repo.git('log', '--format=%s').trim().split('\n').length - 2
  check('dag: commit: true committed each agent\'s files', committed && clean && commits === 4, `${commits} commits`)
  const ids = Object.values(rows).map((r) => r.id)
  const missing = ids.filter((id) => !sessionStored(w.home, id))
  check('dag: the table holds the CLI\'s real session IDs', missing.length === 0 && new Set(ids).size === 4, missing.length > 0 ? `no session stored for ${missing.join(' ')}` : ids.join(' '))
  const played = Object.keys(steps).every((id) => w.server.stepsOf(id).length === steps[id].length)
  check('dag: each agent ran once (server log: every step served once)', played, Object.keys(steps).map((id) => `${id}:${w.server.stepsOf(id).length}/${steps[id].length}`).join(' '))
  if (client === 'claude' || client === 'opencode') {
    const costs = Object.values(rows).map((r) => Number(/cost: \$([\d.]+)/.exec(r.notes)?.[1] ?? 0))
    check('dag: the table records the CLI\'s own cost', costs.every((cost) => cost > 0), costs.map((cost) => `$${cost}`).join(' '))
  }
  debug(w, result)
  await w.server.close()
}

const question = [
  'RESULT: QUESTION',
  'Question: Which colour should colour.txt hold?',
  'Context: The plan does not say.',
  'Resume State:',
  '    step: 2 of 3',
  'Options:',
  '1. red',
  '2. blue'
].join('\n')

/** A QUESTION, `mdplan answer`, and a rerun that resumes the real session with the answer. */
async function questionAndResume(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  steps.Q = [{calls: [{write: {path: w.path('q.txt'), content: 'started\n'}}]}, {text: question}, {calls: [{write: {path: w.path('colour.txt'), content: 'blue\n'}}]}, success('wrote colour.txt')]
  w.write(planText({title: `${client} question`, front: front(client), agents: [{id: 'Q', deps: [], creates: ['q.txt', 'colour.txt'], prompt: 'Pick a colour. mdplan-script:Q'}]}))
  const first = await w.run()
  const asked = row(w.planFile, 'Q')
  check('question: the row waits for an answer (exit 1)', first.code === 1 && asked.status === 'needs_input', `${first.code} ${asked.line}`)
  const answered = await mdplan(['answer', 'plan.md', 'Q', '2'], {cwd: w.repo.dir, env: w.env})
  const before = w.server.requests.length
  const second = await w.run()
  const done = row(w.planFile, 'Q')
  check('question: answered and rerun, it completes', answered.code === 0 && second.code === 0 && done.status === 'completed' && w.read('colour.txt') === 'blue\n', tail(second.output))
  check('question: the rerun resumed the same session', done.id === asked.id && sessionStored(w.home, done.id), `${asked.id} → ${done.id}`)
  const resumed = w.server.requests.slice(before).find((record) => record.script === 'Q' && record.step !== undefined)
  const body = JSON.stringify(resumed?.body ?? {})
  check(
    'question: the resumed request holds the earlier conversation and the answer',
    body.includes('Pick a colour. mdplan-script:Q') && body.includes('Which colour should colour.txt hold?') && /Answer: (?:Option 2: )?blue/.test(body),
    resumed ? `request ${resumed.n}, ${body.length} bytes` : 'no resumed request'
  )
  debug(w, second)
  await w.server.close()
}

/**
 * SIGKILL of `mdplan run` while an agent waits on a slow answer. The agent is a job, not mdplan's child: it goes
 * on without a coordinator, and the rerun re-attaches to it (or collects its end), so S finishes in the session it
 * began, with no new request of S after the kill, and nothing completed runs again.
 */
async function killAndResume(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  steps.F = [{calls: [{write: {path: w.path('f.txt'), content: 'fast\n'}}]}, success('wrote f.txt')]
  // The answer to S's second request is held until mdplan is dead, and comes 3 s after, while the rerun
  // attaches (or after it did). (A fixed 15 s delay raced F's end when the scenarios ran side by side.)
  let release
  const held = new Promise((resolve) => (release = resolve))
  steps.S = [{calls: [{write: {path: w.path('s.txt'), content: 'slow\n'}}]}, {held, ...success('finished after the restart')}]
  w.write(
    planText({
      title: `${client} kill`,
      front: front(client),
      agents: [
        {id: 'F', deps: [], creates: ['f.txt'], prompt: 'Write f.txt. mdplan-script:F'},
        {id: 'S', deps: [], creates: ['s.txt'], prompt: 'Write s.txt, slowly. mdplan-script:S'}
      ]
    })
  )
  const running = startMdplan(['run', 'plan.md', '--agent-timeout', agentTimeout], {cwd: w.repo.dir, env: w.env})
  // Mid-turn: S's slow answer has been asked for, and F is recorded as completed.
  await w.server.waitFor((record) => record.script === 'S' && record.step === 1)
  await until(() => row(w.planFile, 'F').status === 'completed', running.done)
  const killedId = row(w.planFile, 'S').id
  running.child.kill('SIGKILL')
  await running.done
  setTimeout(release, 3000)
  check('kill: S was in progress when mdplan died', row(w.planFile, 'S').status === 'in_progress')
  const before = w.server.requests.length
  const rerun = await w.run()
  const after = w.server.requests.slice(before)
  check('kill: the rerun completes both', rerun.code === 0 && row(w.planFile, 'S').status === 'completed' && w.read('s.txt') === 'slow\n', tail(rerun.output))
  check('kill: nothing completed ran again (no request for F)', !after.some((record) => record.script === 'F') && w.server.stepsOf('F').length === 2)
  const sameSession = row(w.planFile, 'S').id === killedId
  const asked = w.server.stepsOf('S')
  check(
    'kill: S went on in its own session (re-attached: no request of S after the kill)',
    sameSession && !after.some((record) => record.script === 'S') && asked.length === 2 && resumedConversation(asked[1]),
    `${killedId} → ${row(w.planFile, 'S').id}; ${after.filter((record) => record.script === 'S').length} request(s) of S after the kill`
  )
  debug(w, rerun)
  await w.server.close()
}

/** Whether a request carries an earlier assistant turn (a resumed conversation, not a new one). */
function resumedConversation(record) {
  const body = record?.body ?? {}
  const turns = body.messages ?? body.input ?? body.contents ?? []
  return turns.some((turn) => turn.role === 'assistant' || turn.role === 'model' || turn.type === 'function_call' || turn.type === 'custom_tool_call')
}

async function until(condition, abandon) {
  let gone = false
  abandon.then(() => (gone = true))
  // The plan file has no event to await from another process: look at it until it says so (or mdplan ended).
  while (!condition() && !gone) await new Promise((resolve) => setTimeout(resolve, 100))
}

/** 429 then success: the run pauses and retries without spending an attempt (the CLI's own retries off). */
async function rateLimit(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps, {retries: false})
  steps.R = [{fault: 429, retryAfter: 1}, success('after the rate limit')]
  w.write(planText({title: `${client} 429`, front: front(client, {max_attempts: 1}), agents: [{id: 'R', deps: [], creates: ['r.txt'], prompt: 'Say done. mdplan-script:R'}]}))
  const result = await w.run()
  const r = row(w.planFile, 'R')
  check('429: completed with max_attempts 1 (no attempt spent)', result.code === 0 && r.status === 'completed', `${r.line} ${tail(result.output)}`)
  check('429: the run paused, then retried', /rate|paus/i.test(result.output) && w.server.stepsOf('R').length === 2, w.server.stepsOf('R').map((record) => record.fault ?? 'ok').join(' → '))
  debug(w, result)
  await w.server.close()
}

/**
 * The account's quota runs out (the provider's answer with a reset time: quota-answer.js) on the request after
 * the first: the CLI says so in its own words, mdplan stops launching on that runner until the reset, a shell
 * agent (another account) goes on meanwhile, and after the reset the agents resume and complete, no attempt
 * spent. claude and codex print the reset to the minute: the scripted reset is a whole minute (5-65 s ahead).
 * opencode retries every 429 itself after its retry-after (up to 5 times, no switch): it waits for the reset
 * in its own session, and mdplan never sees the limit (checked as such).
 */
async function usageLimit(client, context, check) {
  const steps = {}
  const minute = client === 'claude' || client === 'codex'
  const w = await world(client, context, steps, {retries: false, account: true, quota: {requests: 1, resetInMs: minute ? 5000 : 8000, wholeMinute: minute}})
  steps.A = [{calls: [{write: {path: w.path('a.txt'), content: 'alpha\n'}}]}, success('wrote a.txt')]
  steps.B = [{calls: [{write: {path: w.path('b.txt'), content: 'bravo\n'}}]}, success('wrote b.txt')]
  // The shell agent holds its slot until the plan records the wait (mdplan has the limit), so it ends during
  // the wait and its slot frees while the limited runner may not launch; else it ends when opencode got its answer.
  const signal = join(w.home, 'limit-answered')
  w.server.events.once('limit', () => writeFileSync(signal, ''))
  const waiting = client === 'opencode' ? `[ -e ${signal} ]` : `grep -q '^${client} on local: usage limit, resets' ${w.planFile}`
  const shell = `for i in $(seq 1200); do ${waiting} && break; sleep 0.1; done; ${waiting} && echo shell >> s.txt`
  w.write(
    planText({
      title: `${client} usage limit`,
      // claude's dollars are checked at its price for a named model (scripts/clis/prices.js).
      front: front(client, {max_attempts: 1, ...(client === 'claude' ? {model: dollarModel.claude} : {})}),
      agents: [
        {id: 'S', deps: [], creates: ['s.txt'], fields: {runner: 'shell'}, prompt: shell},
        {id: 'A', deps: [], creates: ['a.txt'], prompt: 'Write a.txt. mdplan-script:A'},
        {id: 'B', deps: [], creates: ['b.txt'], prompt: 'Write b.txt. mdplan-script:B'}
      ]
    })
  )
  const running = startMdplan(['run', 'plan.md', '--agent-timeout', agentTimeout, '--wait-for-reset', '--json'], {cwd: w.repo.dir, env: {...w.env, MDPLAN_RESET_MARGIN_MS: '1000'}})
  // The plan while the account waits: read it from the limit answer until the reset.
  let waitLine
  let pausedNote
  let shellDone = false
  const limited = await Promise.race([w.server.waitFor((record) => record.limited === true), running.done.then(() => undefined)])
  if (limited) {
    await until(() => {
      waitLine ??= readFileSync(w.planFile, 'utf8').split('\n').find((line) => line.startsWith(`${client} on local: usage limit, resets `))
      shellDone ||= row(w.planFile, 'S').status === 'completed'
      pausedNote ??= /paused: [^|]*/.exec(row(w.planFile, 'A').notes)?.[0]
      return Date.now() >= limited.resetAt
    }, running.done)
  }
  const result = await running.done
  const rows = Object.fromEntries(['S', 'A', 'B'].map((id) => [id, row(w.planFile, id)]))
  const scripted = w.server.requests.filter((record) => (record.script === 'A' || record.script === 'B') && (record.step !== undefined || record.limited))
  const refused = scripted.filter((record) => record.limited)
  const during = limited ? scripted.filter((record) => record !== limited && record.at > limited.at && record.at < limited.resetAt) : []
  const paused = result.output.split('\n').filter((line) => line.includes('"type":"paused"') && line.includes(`${client} on local`)).map((line) => JSON.parse(line))
  // When mdplan would launch there again, less the margin: the reset as mdplan read it from the CLI's words.
  const readReset = paused.length > 0 ? paused[0].untilMs - 1000 : undefined
  const story = `${scripted.map((record) => `${record.script}${record.limited ? '!' : record.step}@${limited ? Math.round((record.at - limited.resetAt) / 1000) : '?'}s`).join(' ')} (s from the reset)`
  if (client === 'opencode') {
    // Refused requests only before the reset (B may start while A waits), each agent's next one after it.
    const servedEarly = during.filter((record) => !record.limited)
    const retried = refused.every((record) => scripted.some((next) => next.script === record.script && !next.limited && next.at >= record.resetAt))
    check('usage limit: opencode waited for the reset itself (refused until the reset, its own retry after it)', refused.length >= 1 && servedEarly.length === 0 && retried, story)
  } else {
    check(
      'usage limit: the CLI reported the reset, and mdplan read it (the server\'s reset, to 2 s)',
      limited !== undefined && readReset !== undefined && Math.abs(readReset - limited.resetAt) <= 2000,
      `server ${limited ? new Date(limited.resetAt).toISOString() : '—'}, mdplan ${readReset ? new Date(readReset).toISOString() : '—'}; ${pausedNote ?? 'no paused note seen'}`
    )
    check('usage limit: no request of the limited runner between the limit and the reset (the breaker)', limited !== undefined && refused.length === 1 && during.length === 0, story)
  }
  check('usage limit: the shell agent (another account) went on and completed during the wait', client === 'opencode' ? rows.S.status === 'completed' : shellDone, rows.S.line)
  check('usage limit: no attempt spent (max_attempts 1, no `attempt N:` note)', !/attempt \d/.test(rows.A.notes + rows.B.notes) && rows.A.status === 'completed', rows.A.notes)
  check(
    'usage limit: after the reset every agent completed, once (exit 0)',
    result.code === 0 && Object.values(rows).every((r) => r.status === 'completed') && w.read('a.txt') === 'alpha\n' && w.read('b.txt') === 'bravo\n' && w.server.stepsOf('A').length === 2 && w.server.stepsOf('B').length === 2,
    `exit ${result.code}; ${Object.values(rows).map((r) => `${r.status}`).join(' ')}; ${tail(result.output)}`
  )
  if (client !== 'opencode') {
    check('usage limit: the plan recorded the wait (the line under the table while it waited; the paused event)', waitLine !== undefined && paused.length > 0, waitLine ?? 'no wait line seen')
  }
  spendMatchesBill(client, w, rows, check, limited)
  debug(w, result)
  await w.server.close()
}

/**
 * Each client agent's `tokens:` note against what the server's answers reported for it. codex reports usage
 * only in `turn.completed` (its thread total leaves out a failed turn): what A's limited turn used before
 * the limit is billed by the server but never reported, so for codex the bill counts from the limit on.
 */
function spendMatchesBill(client, w, rows, check, limited) {
  const from = client === 'codex' ? (limited?.at ?? 0) : 0
  const figures = ['A', 'B'].map((id) => {
    const bill = w.server.billed(id, from)
    const noted = Number(/tokens: ([\d,]+)/.exec(rows[id].notes)?.[1]?.replace(/,/g, '') ?? Number.NaN)
    return {id, noted, billed: bill.input + bill.output}
  })
  check(
    `usage limit: each agent's tokens in the table equal what the server billed${client === 'codex' ? ' (codex: the completed turns)' : ''}`,
    figures.every((figure) => figure.noted === figure.billed),
    figures.map((figure) => `${figure.id}: noted ${figure.noted}, billed ${figure.billed}`).join('; ')
  )
  if (!(client in dollarModel)) return
  // The table shows dollars to four places: equal to the bill, rounded the same way.
  const dollars = ['A', 'B'].map((id) => {
    const noted = Number(/cost: \$([\d.]+)/.exec(rows[id].notes)?.[1] ?? Number.NaN)
    return {id, noted, billed: w.server.billedUsd(id, from)}
  })
  check(
    "usage limit: each agent's dollars in the table equal what the server billed (its price for the model, scripts/clis/prices.js)",
    dollars.every((figure) => figure.noted.toFixed(4) === figure.billed.toFixed(4)),
    dollars.map((figure) => `${figure.id}: noted $${figure.noted.toFixed(4)}, billed $${figure.billed.toFixed(6)}`).join('; ')
  )
}

/** 401: a configuration error, one attempt, the actionable note, within seconds. */
async function unauthorized(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  steps.U = [{fault: 401, repeat: true}]
  w.write(planText({title: `${client} 401`, front: front(client, {max_attempts: 3}), agents: [{id: 'U', deps: [], creates: ['u.txt'], prompt: 'Say done. mdplan-script:U'}]}))
  // Counted from the first 401 the server sent, not from the launch: a client's own start-up (opencode's
  // is 15-60 s on a busy machine) is not what this checks.
  let refusedAt
  w.server.waitFor((record) => record.script === 'U' && record.step !== undefined).then(() => (refusedAt = Date.now()))
  const result = await w.run()
  const seconds = refusedAt === undefined ? Number.NaN : Math.round((Date.now() - refusedAt) / 1000)
  const u = row(w.planFile, 'U')
  const launches = result.output.split('\n').filter((line) => /launched U /.test(line)).length
  check('401: failed once, not retried', result.code === 1 && u.status === 'failed' && launches === 1 && !/attempt 2/.test(u.notes), `${launches} launch(es): ${u.notes}`)
  const actionable = {claude: /ANTHROPIC_API_KEY/, codex: /401/, gemini: /401|API key|GEMINI_API_KEY/i, opencode: /401|api key|auth/i}[client]
  check('401: the note says what to check', actionable.test(u.notes), u.notes)
  check('401: ended within seconds of the refusal', seconds < 30, `${seconds}s after the first 401, ${w.server.stepsOf('U').length} model request(s)`)
  debug(w, result)
  await w.server.close()
}

/** A stream cut mid-answer: transient, retried (by the CLI or by mdplan) without spending an attempt. */
async function droppedStream(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  steps.X = [{fault: 'drop', text: 'This answer is cut off before it ends, and the client has to notice.'}, success('after the dropped stream')]
  w.write(planText({title: `${client} drop`, front: front(client, {max_attempts: 1}), agents: [{id: 'X', deps: [], creates: ['x.txt'], prompt: 'Say done. mdplan-script:X'}]}))
  const result = await w.run()
  const x = row(w.planFile, 'X')
  check('dropped stream: retried and completed (max_attempts 1)', result.code === 0 && x.status === 'completed' && w.server.stepsOf('X').length === 2, `${x.line} exit ${result.code ?? result.signal}: ${tail(result.output)}`)
  debug(w, result)
  await w.server.close()
}

/** A shell command the permission mode does not grant: the CLI's refusal reaches the note, one line. */
async function permissionDenied(client, context, check) {
  const steps = {}
  const w = await world(client, context, steps)
  steps.P = [{calls: [{shell: 'npm test'}]}, {text: 'I could not run the tests.'}]
  w.write(planText({title: `${client} permission`, front: front(client, {max_attempts: 1, permission_mode: 'acceptEdits'}), agents: [{id: 'P', deps: [], creates: ['p.txt'], prompt: 'Run the tests. mdplan-script:P'}]}))
  const result = await w.run()
  const p = row(w.planFile, 'P')
  check('permission: the refusal is the note, one line', p.status === 'failed' && /denied .*npm test.*acceptEdits/.test(p.notes) && !p.notes.includes('\n'), p.notes)
  debug(w, result)
  await w.server.close()
}

function tail(output) {
  return output.trim().split('\n').slice(-3).join(' | ').slice(0, 300)
}

function debug(w, result) {
  if (!process.env.MDPLAN_CLIS_DEBUG) return
  console.log(readFileSync(w.planFile, 'utf8'), result.output)
  writeFileSync(join(tmpdir(), 'mdplan-clis-requests.json'), JSON.stringify(w.server.requests, null, 1))
}

export const scenarios = {dag, questionAndResume, killAndResume, rateLimit, usageLimit, unauthorized, droppedStream, permissionDenied}
