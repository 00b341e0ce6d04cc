/**
 * The spawn helper's whole program, run as `node -e <this>` with an IPC
 * channel. It is a string, not a module: the helper must start as a tiny
 * Node (a fork of it is cheap), and it must work the same whether mdplan runs
 * from the bundle, from dist/ or from src/ under the tests, so it cannot load
 * any of mdplan's files. Plain CommonJS, Node built-ins only.
 *
 * Messages in: `{type: 'spawn', id, file, args, cwd, env, input?, inputFile?, registry?}`
 * (stdin: `input`'s bytes, or the file's, then closed; else closed from the start).
 * Messages out, per id, in order: `pid` (the agent started), `out`/`err`
 * (chunks of its stdout/stderr), `exit` (the process ended: its code or
 * signal), `done` (its streams closed, or it never started: `error` set).
 * Killing is the caller's: agents lead their own process groups, which the
 * caller signals by pid. When the caller goes away the helper exits and the
 * agents live on, as they would have without it (the next run finds them).
 *
 * The next run finds them because the helper itself writes each agent into
 * `registry` (the run's process registry) right after the fork, before it
 * answers: an answer still on its way when mdplan is SIGKILLed would leave an
 * agent no registry knows, and the rerun would start a second copy beside it.
 * Before that it writes its own pid there (`h<pid> <start> <parent>`), and it never
 * forks once mdplan is gone: a rerun waits for a helper the registry names to
 * exit before it reads the agents, so no fork can follow that read.
 */
export const spawnHelperSource = String.raw`'use strict'
const {spawn} = require('node:child_process')
const {appendFileSync, readFileSync} = require('node:fs')
// mdplan's pid, given at start: the parent it was started by, also when it died before this line ran.
const parent = Number(process.env.MDPLAN_HELPER_PARENT) || process.ppid
const send = (message) => {
  try {
    process.send(message)
  } catch {}
}
// Tests only: a helper slow to get from an agent's launch message to its fork (a loaded machine), blocked as a busy one would be,
// so nothing else (mdplan's exit) is handled in between.
const delay = Number(process.env.MDPLAN_TEST_HELPER_DELAY_MS) || 0
// Tests only: the same between its check that mdplan still lives and the fork.
const forkDelay = Number(process.env.MDPLAN_TEST_HELPER_FORK_DELAY_MS) || 0
const hold = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
process.on('message', (m) => {
  if (m.type !== 'spawn') return
  if (delay > 0 && m.env && m.env.MDPLAN_AGENT) hold(delay)
  launch(m)
})
function launch(m) {
  const id = m.id
  let finished = false
  const done = (extra) => {
    if (finished) return
    finished = true
    send({type: 'done', id, ...extra})
  }
  // Named first, checked second: a rerun that read the registry before this line is there started after mdplan
  // died, so the check below sees it gone (a dead parent's children have already been handed to another).
  if (m.registry) record(m.registry, helperLine)
  if (process.ppid !== parent) {
    done({error: {message: 'mdplan, which asked for this launch, is gone'}})
    return
  }
  if (forkDelay > 0 && m.env && m.env.MDPLAN_AGENT) hold(forkDelay)
  let child
  try {
    child = spawn(m.file, m.args, {cwd: m.cwd, env: m.env, detached: true, stdio: [m.input === undefined && m.inputFile === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']})
  } catch (error) {
    done({error: {code: error.code, message: String(error.message)}})
    return
  }
  child.on('error', (error) => {
    if (child.pid === undefined) done({error: {code: error.code, message: String(error.message)}})
  })
  if (child.pid === undefined) return
  if (m.registry) record(m.registry, '+' + child.pid + ' ' + startTime(child.pid))
  send({type: 'pid', id, pid: child.pid})
  child.stdout.on('data', (chunk) => send({type: 'out', id, chunk}))
  child.stderr.on('data', (chunk) => send({type: 'err', id, chunk}))
  child.on('exit', (code, signal) => send({type: 'exit', id, code, signal}))
  child.on('close', (code, signal) => done({code, signal}))
  if (m.input !== undefined || m.inputFile !== undefined) {
    // An agent that exits without reading its stdin is not an error of ours.
    child.stdin.on('error', () => {})
    if (m.inputFile === undefined) child.stdin.end(m.input)
    else {
      const source = require('node:fs').createReadStream(m.inputFile)
      source.on('error', () => child.stdin.end())
      source.pipe(child.stdin)
    }
  }
}
// One append, in the page cache before the answer goes out: it survives any process's death (a machine's
// crash ends the agents too). A failure loses only the clean-up after a crash, never the launch.
function record(file, line) {
  try {
    appendFileSync(file, line + '\n')
  } catch {}
}
// As src/process/process-registry.ts reads it: field 22 of /proc/<pid>/stat, '' where there is no /proc.
function startTime(pid) {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] || ''
  } catch {
    return ''
  }
}
// This helper as the registry names it (a reused pid is told apart by its start time).
const helperLine = 'h' + process.pid + ' ' + startTime(process.pid) + ' ' + parent
// A terminal's Ctrl-C is mdplan's to handle (it ends the agents and records them): never the helper's.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGQUIT']) process.on(signal, () => {})
process.on('disconnect', () => process.exit(0))
`

/**
 * How the helper is started (bin/start.js starts it the same way, before the CLI is loaded, for a
 * `run`; src/process/spawn-helper.ts takes that one over, or starts its own).
 */
export function spawnHelperOptions(env: NodeJS.ProcessEnv): {env: NodeJS.ProcessEnv; stdio: ['ignore', 'ignore', 'inherit', 'ipc']; serialization: 'advanced'; detached: true} {
  return {
    // Nothing from this process's flags (--cpu-prof, NODE_OPTIONS) belongs in the helper. Its parent's pid, so it
    // knows when that parent is gone (then it launches nothing more) from its first line on. Tests only:
    // MDPLAN_TEST_HELPER_DELAY_MS makes it wait that long before each launch (a helper slow to get to a message),
    // MDPLAN_TEST_HELPER_FORK_DELAY_MS between its check that mdplan lives and the fork.
    env: {
      PATH: env.PATH ?? '',
      MDPLAN_HELPER_PARENT: String(process.pid),
      ...Object.fromEntries(['MDPLAN_TEST_HELPER_DELAY_MS', 'MDPLAN_TEST_HELPER_FORK_DELAY_MS'].filter((name) => env[name]).map((name) => [name, env[name]]))
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    // Its own session: a Ctrl-C in mdplan's terminal goes to mdplan's process group, and must not end the
    // helper (and with it every running agent's output) before mdplan has stopped the agents its way.
    detached: true
  }
}
