import {existsSync} from 'node:fs'
import {chmod, mkdir, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {root} from './run-cli.js'

/** A fake `podman` on PATH (test/helpers/fake-engine.mjs): its environment, its state folder and the calls it was given. */
export interface FakeEngine {
  env: Record<string, string>
  state: string
  log: string
  /** Every call, one line each (`run -d --name …`, `inspect …`), in order. */
  calls: () => Promise<string[]>
}

/** A fake container engine in a fresh folder; `extra` sets its FAKE_ENGINE_* faults (and any other variable). */
export async function fakeEngine(extra: Record<string, string> = {}): Promise<FakeEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-fake-engine-'))
  const bin = join(dir, 'bin')
  const state = join(dir, 'state')
  await mkdir(bin)
  await mkdir(state)
  await writeFile(join(bin, 'podman'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'test', 'helpers', 'fake-engine.mjs')}' "$@"\n`)
  await chmod(join(bin, 'podman'), 0o755)
  const log = join(dir, 'calls.log')
  const env = {
    GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!,
    GIT_CONFIG_NOSYSTEM: '1',
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_ENGINE_STATE: state,
    FAKE_ENGINE_LOG: log,
    ...extra
  }
  return {env, state, log, calls: async () => (existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : [])}
}
