#!/usr/bin/env node
// A fake podman/docker CLI for the exactly-once tests in `npm test`: containers are detached
// processes of this machine, one state file per name (created exclusively, as an engine's names are
// unique). FAKE_ENGINE_STATE: the state folder; FAKE_ENGINE_LOG: every call, one line each;
// FAKE_ENGINE_LOSE_ANSWER=1: the first `run` of each name starts the container, then answers as a
// broken connection would (the caller never learns it started).
import {spawn, spawnSync} from 'node:child_process'
import {appendFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const state = process.env.FAKE_ENGINE_STATE
const args = process.argv.slice(2)
if (process.env.FAKE_ENGINE_LOG) appendFileSync(process.env.FAKE_ENGINE_LOG, `${args.join(' ')}\n`)
const file = (name) => join(state, `${name}.json`)
const read = (name) => (existsSync(file(name)) ? JSON.parse(readFileSync(file(name), 'utf8')) : undefined)
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const fail = (message, code = 125) => {
  process.stderr.write(`Error: ${message}\n`)
  process.exit(code)
}
const option = (name) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}

if (args[0] === '--version') console.log('fake-engine 1.0')
else if (args[0] === 'image' && args[1] === 'inspect') console.log('[]')
else if (args[0] === 'container' && args[1] === 'inspect') {
  const container = read(args.at(-1))
  if (!container) fail(`no such container ${args.at(-1)}`)
  console.log(alive(container.pid) ? 'running' : 'exited')
} else if (args[0] === 'run' && args.includes('--rm')) {
  const at = args.indexOf('sh')
  const result = spawnSync('sh', args.slice(at + 1), {encoding: 'utf8'})
  process.stdout.write(result.stdout)
  process.exit(result.status ?? 1)
} else if (args[0] === 'run') {
  const name = option('--name')
  const [source, target] = option('-v').split(':')
  const at = args.indexOf('sh')
  const command = args.slice(at + 1).map((arg) => (arg.startsWith(target) ? source + arg.slice(target.length) : arg))
  try {
    writeFileSync(file(name), '{}', {flag: 'wx'})
  } catch {
    fail(`the container name "${name}" is already in use`)
  }
  const child = spawn('sh', command, {detached: true, stdio: 'ignore'})
  writeFileSync(file(name), JSON.stringify({pid: child.pid, label: option('--label')}))
  child.unref()
  const lost = join(state, `${name}.answered`)
  if (process.env.FAKE_ENGINE_LOSE_ANSWER === '1' && !existsSync(lost)) {
    writeFileSync(lost, '')
    fail('connection reset by peer', 125)
  }
  console.log(name)
} else if (args[0] === 'rm') {
  const name = args.at(-1)
  const container = read(name)
  if (container && alive(container.pid)) {
    try {
      process.kill(-container.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  rmSync(file(name), {force: true})
} else if (args[0] === 'ps') {
  for (const entry of readdirSync(state)) if (entry.endsWith('.json')) console.log(entry.slice(0, -5))
} else fail(`fake engine: unknown command ${args.join(' ')}`)
