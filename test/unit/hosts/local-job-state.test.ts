import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {exitStatus, jobPid, localJobState} from '../../../src/hosts/local/local-job.js'

// The wrapper writes `pid` and `rc` in one short write each, with no rename (local-job-script.ts): a reader
// that looks in between sees the file there and empty, and must not take it for an end or a pid.
const wrappers: Array<ReturnType<typeof spawn>> = []
afterAll(() => {
  for (const wrapper of wrappers) wrapper.kill('SIGKILL')
})

/** A live process that names the folder in its command line, as the wrapper does (`sh -c … mdplan-job <folder>`). */
function wrapperFor(dir: string): number {
  const wrapper = spawn('sh', ['-c', 'sleep 60', 'mdplan-job', dir], {stdio: 'ignore'})
  wrappers.push(wrapper)
  return wrapper.pid!
}

function folder(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'mdplan-local-job-')), 'job')
  mkdirSync(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

describe("a local job's folder, read while its wrapper writes it", () => {
  it('an rc still empty is no exit status, and the job whose wrapper lives is running', () => {
    const dir = folder({run: '', rc: ''})
    writeFileSync(join(dir, 'pid'), `${wrapperFor(dir)}\n`)
    expect(exitStatus(dir)).toBeUndefined()
    expect(localJobState(dir)).toBe('running')
  })

  it('an rc left empty by a wrapper that died writing it is a dead job, not an ended one', () => {
    const dir = folder({run: '', pid: '2147483646\n', rc: ''})
    expect(localJobState(dir)).toBe('dead')
  })

  it('an rc written is the end, with its status', () => {
    const dir = folder({run: '', pid: '2147483646\n', rc: '3\n'})
    expect(exitStatus(dir)).toBe(3)
    expect(localJobState(dir)).toBe('ended')
  })

  it('a pid still empty is no pid: a job just started is running, not dead', () => {
    const dir = folder({run: '', pid: ''})
    expect(jobPid(dir)).toBeUndefined()
    expect(localJobState(dir)).toBe('running')
  })
})
