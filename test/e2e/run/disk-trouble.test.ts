import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'

/**
 * A disk that fills up or turns read-only under a running plan, made real with
 * a small tmpfs (root only). Where mounting is not permitted the tests skip,
 * saying so, rather than pretend with chmod (which does not stop root).
 */
function mountProbe(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'mdplan-mount-probe-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], {stdio: 'pipe'})
    execFileSync('umount', [probe], {stdio: 'pipe'})
    return undefined
  } catch (error) {
    return `cannot mount a tmpfs here (${String((error as Error).message).split('\n')[0]}): disk-full and read-only runs are not tested`
  } finally {
    rmSync(probe, {recursive: true, force: true})
  }
}

const cannotMount = mountProbe()
if (cannotMount) console.warn(`disk-trouble: skipped: ${cannotMount}`)

const mounts: string[] = []
afterEach(() => {
  const dirs = mounts.splice(0).reverse()
  for (const dir of dirs) {
    try {
      execFileSync('umount', ['-l', dir], {stdio: 'pipe'})
    } catch {
      // Already unmounted.
    }
  }
  for (const dir of new Set(dirs)) rmSync(dir, {recursive: true, force: true})
})

/**
 * A plan on its own small tmpfs, bind-mounted over itself so that it can be made
 * read-only while files are open (a tmpfs remount refuses while mdplan holds a replaced
 * file open; a bind mount's own read-only flag does not). Agents run on the normal disk;
 * the plan's logs and local jobs, beside it, share its disk unless `logsElsewhere`: a remount
 * to read-only is refused (busy) while a file on the mount is open for writing, as the run
 * log, a running agent's log and its job's output are, where a failing disk would not ask.
 */
function setup(size: string, agents: (mnt: string) => Parameters<typeof shellPlan>[0], logsElsewhere = false): {mnt: string; plan: string; work: string} {
  const mnt = mkdtempSync(join(tmpdir(), 'mdplan-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt])
  mounts.push(mnt)
  execFileSync('mount', ['--bind', mnt, mnt])
  mounts.push(mnt)
  const work = mkdtempSync(join(tmpdir(), 'mdplan-disk-work-'))
  if (logsElsewhere) {
    for (const [folder, elsewhere] of [['logs', 'plan-logs'], ['local-jobs', 'plan-jobs']] as const) {
      const inside = join(mnt, '.mdplan', folder)
      mkdirSync(inside, {recursive: true})
      mkdirSync(join(work, elsewhere))
      execFileSync('mount', ['--bind', join(work, elsewhere), inside])
      mounts.push(inside)
    }
  }
  const plan = join(mnt, 'plan.md')
  writeFileSync(plan, shellPlan(agents(mnt)))
  return {mnt, plan, work}
}

async function waitForFile(file: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const tempFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.mdplan-tmp'))

describe.skipIf(cannotMount !== undefined)('disk trouble mid-run', () => {
  it('disk full: stops launching, says why, keeps the last good file, and resumes once space is freed', async () => {
    const {mnt, plan, work} = setup('64k', (mnt) => ({
      // A fills the plan's disk, then fails with a reason that makes the table longer.
      // Once: the marker lives on the other disk, so the resumed run's A just succeeds.
      A: {
        estimate: '10m',
        script: `echo run >> a.runs\ntouch a.started\nwhile [ ! -f go ]; do sleep 0.05; done\n[ -f filled ] && exit 0\nhead -c 1048576 /dev/zero > "${mnt}/fill" 2>/dev/null\ntouch filled\necho "the disk is full now, and this reason makes the table longer" >&2\nexit 1`
      },
      C: {estimate: '1s', script: 'touch c-ran'}
    }))
    const run = startCli(['run', plan, '--cwd', work, '--concurrency', '1', '--max-attempts', '2'], {cwd: work})
    await waitForFile(join(work, 'a.started'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    // mdplan frees the file its last write replaced before it writes the next one, so a full
    // tmpfs still has room for a plan of the same number of pages: pad the plan (a hand edit,
    // merged by the run) to just under a page boundary, so that A's failure note needs one more page.
    const text = readFileSync(plan, 'utf8')
    const size = Buffer.byteLength(text)
    const target = (Math.floor(size / 4096) + 1) * 4096 - 8
    const pad = `<!-- ${'p'.repeat(target - size - 10)} -->\n`
    const padded = text.replace('## Agents\n', `${pad}## Agents\n`)
    writeFileSync(`${plan}.edit`, padded)
    renameSync(`${plan}.edit`, plan)
    // The run reads it at its next poll (250 ms) and takes it as its own: the merge changes nothing
    // in the table, so nothing is written (the file stays the padded one).
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const lastGood = readFileSync(plan)
    expect(lastGood.length).toBe(target)
    writeFileSync(join(work, 'go'), '')
    const result = await run

    expect(result.exitCode, result.all).toBe(1)
    expect(result.all).toMatch(new RegExp(`cannot write ${plan.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*ENOSPC.*no new agents will launch`))
    expect(existsSync(join(work, 'c-ran')), result.all).toBe(false)
    // Its retry is not launched either: the file could not say it was.
    expect(readFileSync(join(work, 'a.runs'), 'utf8'), result.all).toBe('run\n')
    expect(readFileSync(plan).equals(lastGood)).toBe(true)
    expect(parsePlan(readFileSync(plan, 'utf8'), plan).messages.filter((d) => d.severity === 'error')).toEqual([])
    expect(tempFiles(mnt)).toEqual([])

    rmSync(join(mnt, 'fill'))
    const again = await runCli(['run', plan, '--cwd', work], {cwd: work})
    expect(again.exitCode, again.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.C!.status).toBe('completed')
    expect(existsSync(join(work, 'c-ran'))).toBe(true)
    expect(existsSync(`${plan}.lock`)).toBe(false)
  })

  it('read-only folder: stops launching, says why, keeps the last good file, and resumes once writable', async () => {
    const {mnt, plan, work} = setup('1m', () => ({
      A: {script: 'touch a.started\nwhile [ ! -f go ]; do sleep 0.05; done'},
      B: {deps: ['A'], script: 'touch b-ran'}
    }), true)
    const run = startCli(['run', plan, '--cwd', work], {cwd: work})
    await waitForFile(join(work, 'a.started'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const lastGood = readFileSync(plan)
    execFileSync('mount', ['-o', 'remount,bind,ro', mnt])
    writeFileSync(join(work, 'go'), '')
    const result = await run

    expect(result.exitCode, result.all).toBe(1)
    expect(result.all).toMatch(new RegExp(`cannot write ${plan.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*EROFS.*no new agents will launch`))
    expect(existsSync(join(work, 'b-ran')), result.all).toBe(false)
    expect(readFileSync(plan).equals(lastGood)).toBe(true)

    execFileSync('mount', ['-o', 'remount,bind,rw', mnt])
    const again = await runCli(['run', plan, '--cwd', work], {cwd: work})
    expect(again.exitCode, again.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    expect(existsSync(join(work, 'b-ran'))).toBe(true)
    expect(existsSync(`${plan}.lock`)).toBe(false)
  })
})
