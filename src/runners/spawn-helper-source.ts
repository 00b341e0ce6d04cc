/**
 * The spawn helper's whole program, run as `node -e <this>` with an IPC
 * channel. It is a string, not a module: the helper must start as a tiny
 * Node (a fork of it is cheap), and it must work the same whether mdplan runs
 * from the bundle, from dist/ or from src/ under the tests, so it cannot load
 * any of mdplan's files. Plain CommonJS, Node built-ins only.
 *
 * Messages in: `{type: 'spawn', id, file, args, cwd, env, input?}`.
 * Messages out, per id, in order: `pid` (the agent started), `out`/`err`
 * (chunks of its stdout/stderr), `exit` (the process ended: its code or
 * signal), `done` (its streams closed, or it never started: `error` set).
 * Killing is the caller's: agents lead their own process groups, which the
 * caller signals by pid. When the caller goes away the helper exits and the
 * agents live on, as they would have without it (the next run finds them).
 */
export const spawnHelperSource = String.raw`'use strict'
const {spawn} = require('node:child_process')
const send = (message) => {
  try {
    process.send(message)
  } catch {}
}
process.on('message', (m) => {
  if (m.type !== 'spawn') return
  const id = m.id
  let finished = false
  const done = (extra) => {
    if (finished) return
    finished = true
    send({type: 'done', id, ...extra})
  }
  let child
  try {
    child = spawn(m.file, m.args, {cwd: m.cwd, env: m.env, detached: true, stdio: [m.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']})
  } catch (error) {
    done({error: {code: error.code, message: String(error.message)}})
    return
  }
  child.on('error', (error) => {
    if (child.pid === undefined) done({error: {code: error.code, message: String(error.message)}})
  })
  if (child.pid === undefined) return
  send({type: 'pid', id, pid: child.pid})
  child.stdout.on('data', (chunk) => send({type: 'out', id, chunk}))
  child.stderr.on('data', (chunk) => send({type: 'err', id, chunk}))
  child.on('exit', (code, signal) => send({type: 'exit', id, code, signal}))
  child.on('close', (code, signal) => done({code, signal}))
  if (m.input !== undefined) {
    // An agent that exits without reading its stdin is not an error of ours.
    child.stdin.on('error', () => {})
    child.stdin.end(m.input)
  }
})
// A terminal's Ctrl-C is mdplan's to handle (it ends the agents and records them): never the helper's.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGQUIT']) process.on(signal, () => {})
process.on('disconnect', () => process.exit(0))
`

/**
 * How the helper is started (bin/start.js starts it the same way, before the CLI is loaded, for a
 * `run`; src/runners/spawn-helper.ts takes that one over, or starts its own).
 */
export function spawnHelperOptions(env: NodeJS.ProcessEnv): {env: NodeJS.ProcessEnv; stdio: ['ignore', 'ignore', 'inherit', 'ipc']; serialization: 'advanced'; detached: true} {
  return {
    // Nothing from this process's flags (--cpu-prof, NODE_OPTIONS) belongs in the helper.
    env: {PATH: env.PATH ?? ''},
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    // Its own session: a Ctrl-C in mdplan's terminal goes to mdplan's process group, and must not end the
    // helper (and with it every running agent's output) before mdplan has stopped the agents its way.
    detached: true
  }
}
