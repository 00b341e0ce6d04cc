import {execFile} from 'node:child_process'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {root} from '../../helpers/run-cli.js'

/** The short version of `npm run soak`: same harness, fewer agents, kills and saves. */
async function soak(args: string[]): Promise<Record<string, any>> {
  const {stdout} = await promisify(execFile)(process.execPath, [join(root, 'bench', 'soak.js'), '--json', ...args], {cwd: root, maxBuffer: 16 << 20}).catch(
    // A missed target exits 1, with the figures still on stdout.
    (error: {stdout?: string; stderr?: string}) => {
      if (!error.stdout) throw error
      return {stdout: error.stdout}
    }
  )
  return JSON.parse(stdout)
}

describe('soak, short version', () => {
  it('SIGKILL at random moments and resume: the plan always parses, no completed agent runs again, all complete', async () => {
    const {kill} = await soak(['--only', 'kill', '--agents', '20', '--kills', '6', '--min-ms', '40', '--max-ms', '250', '--max-kill-ms', '800', '--seed', '3', '--git', 'none'])
    expect(kill.kills).toBe(6)
    expect(kill.parseFailures).toEqual([])
    expect(kill.unexpectedExits).toEqual([])
    expect(kill.reran).toEqual([])
    expect(kill.overlapped).toEqual([])
    expect(kill.completedLost).toBe(0)
    expect(kill.finalExit, kill.finalOutput).toBe(0)
    expect(kill.notCompleted).toEqual([])
    expect(kill.neverDone).toEqual([])
    expect(kill.leftoverTemps).toEqual([])
    expect(kill.lockLeft).toBe(false)
  }, 90_000)

  it('hand saves while a plan runs: no edit lost, every re-queue followed, nothing rerun unasked', async () => {
    const {editors} = await soak(['--only', 'editors', '--editor-agents', '30', '--edits', '30', '--gap', '40', '--min-ms', '20', '--max-ms', '150', '--seed', '5', '--git', 'none'])
    expect(editors.saves).toBe(30)
    expect(editors.editorCode).toBe(0)
    expect(editors.lost).toEqual([])
    expect(editors.ignored).toEqual([])
    expect(editors.unasked).toEqual([])
    expect(editors.failedWrites).toEqual([])
    expect(editors.exitCode, editors.stderr).toBe(0)
    expect(editors.notCompleted).toEqual([])
    expect(editors.parseOk).toBe(true)
    // The saves covered each kind of edit.
    expect(editors.counts.context).toBeGreaterThan(0)
    expect(editors.counts.note + editors.counts.requeue).toBeGreaterThan(0)
  }, 90_000)

  it('SIGKILL and resume inside git repositories, with commit: true and with worktrees: every agent once, its work committed', async () => {
    const args = ['--only', 'kill', '--agents', '4', '--kills', '1', '--git', 'commit,worktree', '--git-agents', '12', '--git-kills', '3']
    const results = await soak([...args, '--min-ms', '40', '--max-ms', '200', '--max-kill-ms', '800', '--seed', '4'])
    for (const mode of ['commit', 'worktree']) {
      const kill = results[`kill-git-${mode}`]
      expect(kill.kills).toBe(3)
      expect(kill.parseFailures).toEqual([])
      expect(kill.reran).toEqual([])
      expect(kill.overlapped).toEqual([])
      expect(kill.completedLost).toBe(0)
      expect(kill.finalExit, kill.finalOutput).toBe(0)
      expect(kill.notCompleted).toEqual([])
      expect(kill.gitProblems).toEqual([])
      expect(kill.lockLeft).toBe(false)
    }
    // Two 12-agent soaks with commits, worktrees and three kills each: 36 s on 2 cores beside one other run, 50 s
    // beside two CPU burners; 90 s was too close.
  }, 240_000)
})
