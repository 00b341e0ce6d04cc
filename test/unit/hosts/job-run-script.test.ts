import {mkdir, mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {runScript} from '../../../src/hosts/job-scripts.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'

beforeAll(isolateGitConfig)

/** A job folder as submitScript leaves it (bundle base), whose agent runs `agent` with `sh -c`. */
async function jobFolder(agent: string): Promise<string> {
  const repo = await tempRepo({'a.txt': 'a\n'})
  const base = await repo.git('rev-parse', 'HEAD')
  const branch = await repo.git('rev-parse', '--abbrev-ref', 'HEAD')
  const j = join(await mkdtemp(join(tmpdir(), 'mdplan-run-script-')), 'jobs', 'k-A-a1-x')
  await mkdir(j, {recursive: true})
  await repo.git('bundle', 'create', join(j, 'base.bundle'), branch)
  await writeFile(join(j, 'job'), [base, `refs/heads/${branch}`, 'mdplan/k/A', '.', 'mdplan', 'mdplan@localhost', 'k-A-a1-x', ''].join('\n') + '\n')
  await writeFile(join(j, 'argv'), ['sh', '-c', agent, ''].join('\0'))
  await writeFile(join(j, 'env.sh'), '')
  await writeFile(join(j, 'message'), 'A\n')
  return j
}

describe('the job script (run.sh)', () => {
  it('ends with its agent, with its result written', async () => {
    const j = await jobFolder('echo hi')
    const run = await execa('sh', ['-c', runScript, 'run.sh', j], {reject: false, timeout: 20_000})
    expect(run.timedOut).toBe(false)
    expect((await execa('cat', [join(j, 'rc'), join(j, 'out')])).stdout).toBe('0\nhi')
  })

  it('ends when its folder is removed under it (a cancel, `mdplan clean`): its beacon does not keep it waiting', async () => {
    const j = await jobFolder('rm -rf "$MDPLAN_JOB"')
    const run = await execa('sh', ['-c', runScript, 'run.sh', j], {reject: false, timeout: 20_000})
    expect(run.timedOut, 'run.sh still waited on its beacon').toBe(false)
  })
})
