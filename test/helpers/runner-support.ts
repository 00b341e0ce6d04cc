import {mkdtempSync, readFileSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Agent} from '../../src/plan/types.js'
import type {RunRequest} from '../../src/runners/runner.js'

/** Shared by the runner tests: fake CLIs, temp folders, minimal agents and requests. */
export const agentsDir = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url))

export function tempDir(prefix = 'mdplan-runner-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

const nowhere = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

export function fakeAgent(id = 'A', fields: Record<string, string> = {}): Agent {
  return {
    id,
    name: `agent ${id}`,
    position: nowhere,
    section: nowhere,
    dependsOn: [],
    softDependsOn: [],
    creates: [],
    modifies: [],
    deletes: [],
    fields: Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [key, {key, rawKey: key, value, position: nowhere}])
    )
  }
}

export function request(dir: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    agent: fakeAgent(),
    prompt: 'do it',
    cwd: dir,
    planFile: join(dir, 'plan.md'),
    attempt: 1,
    logFile: join(dir, 'logs', 'A-1.log'),
    options: {},
    ...overrides
  }
}

/** The argv lines a fake CLI recorded in `$FAKE_ARGV_LOG`. */
export function readArgvLog(file: string): Array<{argv: string[]; cwd: string}> {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as {argv: string[]; cwd: string})
}

export {isAlive} from '../../src/store/is-alive.js'

export async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
