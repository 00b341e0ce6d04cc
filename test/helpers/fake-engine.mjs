#!/usr/bin/env node
// A fake podman/docker CLI for the exactly-once tests in `npm test`: containers are detached
// processes of this machine, one state file per name (created exclusively, as an engine's names are
// unique). FAKE_ENGINE_STATE: the state folder; FAKE_ENGINE_LOG: every call, one line each (and
// in FAKE_ENGINE_LOG.times, after the ms it was made at);
// FAKE_ENGINE_LOSE_ANSWER=1: the first `run` of each name starts the container, then answers as a
// broken connection would (the caller never learns it started).
// FAKE_ENGINE_CREATE_ONLY=N: the first N `run -d` calls create their container and never start it (it stays
// `created`), then end as a `run -d` killed between create and start does (137, nothing said).
// FAKE_ENGINE_NO_JOB=N: the first N `run -d` calls start a container that ends at once without running its
// command (an entrypoint that failed before the job script began).
// FAKE_ENGINE_HANG=before|created: the first `run -d` writes its pid to `hang.pid` in the state folder and
// hangs, before it makes anything (`before`) or once its container is made and not started (`created`); a
// test SIGKILLs it with the coordinator, as a killed process group ends both.
import {spawn, spawnSync} from 'node:child_process'
import {appendFileSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const state = process.env.FAKE_ENGINE_STATE
const args = process.argv.slice(2)
if (process.env.FAKE_ENGINE_LOG) {
  appendFileSync(process.env.FAKE_ENGINE_LOG, `${args.join(' ')}\n`)
  appendFileSync(`${process.env.FAKE_ENGINE_LOG}.times`, `${Date.now()} ${args.join(' ')}\n`)
}
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
  // Made and never started (no process): what an engine says of a container whose `run -d` died in between.
  console.log(container.pid === undefined ? 'created' : alive(container.pid) ? 'running' : 'exited')
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
  const hang = process.env.FAKE_ENGINE_HANG && once('hang') ? process.env.FAKE_ENGINE_HANG : undefined
  if (hang === 'before') hangHere()
  try {
    writeFileSync(file(name), '{}', {flag: 'wx'})
  } catch {
    fail(`the container name "${name}" is already in use`)
  }
  if (hang === 'created') hangHere()
  if (Number(process.env.FAKE_ENGINE_CREATE_ONLY ?? 0) > 0 && counted('create-only') <= Number(process.env.FAKE_ENGINE_CREATE_ONLY)) process.exit(137)
  const noJob = Number(process.env.FAKE_ENGINE_NO_JOB ?? 0) > 0 && counted('no-job') <= Number(process.env.FAKE_ENGINE_NO_JOB)
  const child = noJob ? spawn('true', [], {detached: true, stdio: 'ignore'}) : spawn('sh', command, {detached: true, stdio: 'ignore'})
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

/** How many times `what` was counted, this call included (one file per count in the state folder). */
function counted(what) {
  const at = join(state, `${what}.count`)
  const count = (existsSync(at) ? Number(readFileSync(at, 'utf8')) : 0) + 1
  writeFileSync(at, String(count))
  return count
}

/** True the first time it is asked for `what` (the file is made exclusively). */
function once(what) {
  try {
    writeFileSync(join(state, `${what}.once`), '', {flag: 'wx'})
    return true
  } catch {
    return false
  }
}

/** Say where this call is (its pid) and wait until it is killed. */
function hangHere() {
  writeFileSync(join(state, 'hang.pid.tmp'), String(process.pid))
  renameSync(join(state, 'hang.pid.tmp'), join(state, 'hang.pid'))
  // Never goes on: the rest of this call runs only if it is not killed, and it is.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
}
