import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {root, runCli} from '../../helpers/run-cli.js'
import {startReceiver} from '../../helpers/webhook-receiver.js'
import {hookTarget, notifyFiles, notifyTestFile} from './notify-helpers.js'

const cleanups = notifyTestFile()

describe('a usage-limit wait, told (a real git repository, the fake claude, a receiver on 127.0.0.1)', () => {
  it('is told once with its account and reset, and a rerun that honours the same wait does not tell it again', async () => {
    const receiver = await startReceiver()
    cleanups.push(() => receiver.close())
    const plan = ['---', 'runner: claude', 'concurrency: 1', hookTarget('[usage_limit, run_finished]'), '---', '', '# Parallel Plan: limits', '', '## Agents', '', '### A: work', '- **depends_on**: []', '- **prompt**: |', '    Do A.', ''].join('\n')
    const repo = await tempRepo({'plan.md': plan})
    cleanups.push(() => repo.cleanup())
    const state = await mkdtemp(join(tmpdir(), 'mdplan-fake-state-'))
    const env = {
      MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
      FAKE_SCENARIO: 'usage-limit-once',
      FAKE_RESET_IN_S: '3600',
      FAKE_STATE_DIR: state,
      MDPLAN_TEST_HOOK: receiver.url,
      MDPLAN_TEST_TOKEN: 'x'
    }
    const first = await runCli(['run', 'plan.md'], {cwd: repo.root, env})
    expect(first.exitCode, first.all).toBe(4)
    expect(receiver.deliveries.map((d) => d.body.kind).sort()).toEqual(['run_finished', 'usage_limit'])
    const wait = receiver.deliveries.find((d) => d.body.kind === 'usage_limit')!.body
    expect(wait).toMatchObject({account: 'claude on local', needs_you: false, until: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/)})
    expect(wait.text).toMatch(/^usage limit: launches on claude on local wait until /)
    expect(receiver.deliveries.find((d) => d.body.kind === 'run_finished')!.body).toMatchObject({exit_code: 4, needs_you: true})

    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(4)
    // Only the rerun's own end is new.
    expect(receiver.deliveries.slice(2).map((d) => d.body.kind)).toEqual(['run_finished'])
    expect(notifyFiles(repo).settled.filter((s) => s.id === wait.id)).toHaveLength(1)
  })
})
