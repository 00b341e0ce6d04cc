import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {preflightScript} from '../src/hosts/job-scripts.js'
import {tempDir} from './runner-support.js'

/**
 * The host half of preflight, run here with `sh` as ssh runs it there: a login check that does not answer
 * within the limit is reported as such (`authslow`), never as an answer, and a host without `timeout` (no
 * limit at all) is asked to install it instead of running the check unbounded.
 */
function hostWith(tools: string[]): {bin: string; dir: string} {
  const root = tempDir()
  const bin = join(root, 'bin')
  mkdirSync(bin)
  for (const tool of tools) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).trim()
    symlinkSync(found, join(bin, tool))
  }
  // A CLI whose status command answers "logged in" after 3 s.
  writeFileSync(join(bin, 'slowcli'), '#!/bin/sh\nsleep 3\necho \'{"loggedIn": true}\'\n')
  chmodSync(join(bin, 'slowcli'), 0o755)
  return {bin, dir: join(root, 'jobs')}
}

const basics = ['git', 'tar', 'setsid', 'tail', 'xargs', 'base64', 'df', 'awk', 'mktemp', 'tr', 'mkdir', 'rm', 'cat', 'sleep']

function preflight(bin: string, dir: string, limitSeconds: number): string[] {
  const out = execFileSync('/bin/sh', ['-c', preflightScript, 'mdplan', dir, String(limitSeconds), 'slowcli', '--', 'slowcli', 'auth', 'status'], {env: {PATH: bin, HOME: dir}, encoding: 'utf8'})
  return out.split('\n').filter((line) => !line.startsWith('disk ') && line !== '')
}

describe('preflightScript', () => {
  it('a login check that does not answer within the limit is `authslow`, not an answer', () => {
    const {bin, dir} = hostWith([...basics, 'timeout'])
    const started = Date.now()
    expect(preflight(bin, dir, 1)).toEqual(['authslow 0'])
    expect(Date.now() - started).toBeLessThan(2900)
  })

  it('one that answers in time is its answer', () => {
    const {bin, dir} = hostWith([...basics, 'timeout'])
    const [line] = preflight(bin, dir, 10)
    expect(line).toMatch(/^auth 0 0 \S+ $/)
    expect(Buffer.from(line!.split(' ')[3]!, 'base64').toString()).toContain('"loggedIn": true')
  })

  it('a host without `timeout` is told to install it (the check would run without a limit)', () => {
    const {bin, dir} = hostWith(basics)
    const started = Date.now()
    expect(preflight(bin, dir, 1)).toEqual(['missing timeout'])
    // The check is not asked at all.
    expect(Date.now() - started).toBeLessThan(2900)
  })
})
