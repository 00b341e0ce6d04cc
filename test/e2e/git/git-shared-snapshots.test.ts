import {chmod, mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {sharedSnapshots} from '../../../src/git/shared-snapshots.js'
import type {SnapshotResult} from '../../../src/git/take-snapshot.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

/** A snapshot taker that counts its calls and resolves when told, on a clock the test moves. */
function fakeGit() {
  let now = 1000
  const calls: Array<{at: number; resolve: () => void}> = []
  const shared = sharedSnapshots(
    () =>
      new Promise<SnapshotResult>((resolve) => {
        const at = now
        calls.push({at, resolve: () => resolve({ok: true, snapshot: {root: '/r', head: String(at), dirty: new Map()}})})
      }),
    () => now
  )
  const head = async (promise: Promise<SnapshotResult>) => {
    const result = await promise
    return result.ok ? Number(result.snapshot.head) : -1
  }
  return {shared, calls, head, tick: (ms: number) => (now += ms), get now() {
    return now
  }}
}

describe('snapshots shared by launches and checks', () => {
  it("a launch after the check that made it ready takes the check's snapshot; one after another agent was checked, or a commit, takes a new one", async () => {
    const git = fakeGit()
    // Agent W ended at 1000; its check asks for a snapshot since then.
    git.shared.touched(1000)
    const check = git.shared.take(1000)
    git.calls[0]!.resolve()
    expect(await git.head(check)).toBe(1000)
    // The launch it made ready: no agent ended and no commit since the check's snapshot started.
    git.tick(5)
    expect(await git.head(git.shared.take(git.shared.touchedAt))).toBe(1000)
    expect(git.calls).toHaveLength(1)
    // Another agent, ended later, is checked: the next launch must see its last write.
    git.shared.touched(git.tick(3))
    const launch = git.shared.take(git.shared.touchedAt)
    expect(git.calls).toHaveLength(2)
    git.calls[1]!.resolve()
    expect(await git.head(launch)).toBe(1008)
    // A commit after that snapshot: a new one again.
    git.shared.touched(git.tick(1))
    const afterCommit = git.shared.take(git.shared.touchedAt)
    git.calls[2]!.resolve()
    expect(await git.head(afterCommit)).toBe(1009)
    expect(git.calls).toHaveLength(3)
  })

  it('a snapshot under way serves launches only when it started after the last change; later callers wait for one taken after it', async () => {
    const git = fakeGit()
    const first = git.shared.take(0)
    const together = git.shared.take(0)
    expect(git.calls).toHaveLength(1)
    // An agent is checked while the snapshot is under way: a launch now waits for the next one.
    git.shared.touched(git.tick(2))
    const later = git.shared.take(git.shared.touchedAt)
    const laterToo = git.shared.take(git.shared.touchedAt)
    expect(git.calls).toHaveLength(1)
    git.calls[0]!.resolve()
    expect(await git.head(first)).toBe(1000)
    expect(await git.head(together)).toBe(1000)
    await Promise.resolve()
    expect(git.calls).toHaveLength(2)
    git.calls[1]!.resolve()
    expect(await git.head(later)).toBe(1002)
    expect(await git.head(laterToo)).toBe(1002)
    // A check of an agent that ended after the last snapshot started does not take it.
    git.tick(1)
    const check = git.shared.take(git.now)
    expect(git.calls).toHaveLength(3)
    git.calls[2]!.resolve()
    expect(await git.head(check)).toBe(1003)
  })
})

describe('snapshots and mdplan\'s own git writes', () => {
  it('a snapshot asked for while mdplan commits or merges waits for it, and is one started after it (never one taken halfway)', async () => {
    const git = fakeGit()
    const before = git.shared.take(0)
    git.calls[0]!.resolve()
    expect(await git.head(before)).toBe(1000)
    git.tick(5)
    const done = git.shared.writing()
    const launch = git.shared.take(git.shared.touchedAt)
    const check = git.shared.take(1001)
    await Promise.resolve()
    // Nothing asked of git while the commit runs.
    expect(git.calls).toHaveLength(1)
    git.tick(10)
    done()
    done()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(git.calls).toHaveLength(2)
    git.calls[1]!.resolve()
    expect(await git.head(launch)).toBe(1015)
    expect(await git.head(check)).toBe(1015)
    // Two writes at once: snapshots wait for both.
    const one = git.shared.writing()
    const two = git.shared.writing()
    const waiting = git.shared.take(0)
    one()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(git.calls).toHaveLength(2)
    git.tick(1)
    two()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(git.calls).toHaveLength(3)
    git.calls[2]!.resolve()
    expect(await git.head(waiting)).toBe(1016)
  })
})

describe('a chain of agents in git asks git status once per link', () => {
  let repo: TempRepo
  beforeAll(isolateGitConfig)
  afterEach(() => repo?.cleanup())

  it('five agents in a chain: one status for the first launch and one per check, each agent its own file and no scope note; an agent writing another one\'s file is still caught', async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-git.log`)
    const bin = join(repo.root, '..', `${repo.root.split('/').pop()}-bin`)
    await mkdir(bin, {recursive: true})
    await writeFile(join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do [ "$a" = status ] && echo status >> '${log}'; done\nPATH='${process.env.PATH}' exec git "$@"\n`)
    await chmod(join(bin, 'git'), 0o755)
    const ids = ['A', 'B', 'C', 'D', 'E']
    const agents = Object.fromEntries(
      ids.map((id, i) => [id, {deps: i ? [ids[i - 1]!] : [], creates: [`out/${id}.txt`], script: `mkdir -p out && echo ${id} > out/${id}.txt && echo ${id} >> '${log}.agents'`}])
    )
    // E also writes A's file: a scope violation the shared snapshot must still see.
    agents.E!.script = `mkdir -p out && echo E > out/E.txt && echo again >> out/A.txt && echo E >> '${log}.agents'`
    await writeFile(join(repo.root, 'plan.md'), shellPlan(agents))
    await repo.git('add', 'plan.md')
    await repo.git('commit', '-q', '-m', 'plan')
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root, env: {PATH: `${bin}:${process.env.PATH}`}})
    expect(result.exitCode, result.all).toBe(0)
    expect((await readFile(`${log}.agents`, 'utf8')).trim().split('\n')).toEqual(ids)
    const statuses = (await readFile(log, 'utf8')).trim().split('\n').length
    // Before: a status per launch and per check (10); now the launches after the first share the checks'.
    expect(statuses).toBe(ids.length + 1)
    const {rows} = await readTable(join(repo.root, 'plan.md'))
    for (const id of ['A', 'B', 'C', 'D']) expect(rows[id]!.notes, id).not.toMatch(/scope/)
    expect(rows.E!.notes).toMatch(/scope: .*out\/A\.txt/)
  })
})
