import {existsSync} from 'node:fs'
import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {root} from './run-cli.js'

export interface FakeSlurmJob {
  id: number
  name: string
  state: string
  pid?: number
}

/** A fake Slurm (fixtures/fake-slurm): its commands first on PATH, its state and faults in a temp folder, and a shared job folder. */
export interface FakeSlurm {
  env: Record<string, string>
  /** The host's shared `dir:`. */
  shared: string
  faults(values: Record<string, unknown>): Promise<void>
  state(): Promise<{jobs: FakeSlurmJob[]; cancelled?: number[]; started?: number[]; zombies?: number[]}>
}

export async function fakeSlurm(): Promise<FakeSlurm> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-fake-slurm-'))
  const shared = await mkdtemp(join(tmpdir(), 'mdplan-slurm-shared-'))
  return {
    env: {PATH: `${join(root, 'fixtures', 'fake-slurm', 'bin')}:${process.env.PATH}`, FAKE_SLURM_DIR: dir},
    shared,
    faults: (values) => writeFile(join(dir, 'faults.json'), JSON.stringify(values)),
    async state() {
      const file = join(dir, 'state.json')
      return existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) : {jobs: []}
    }
  }
}
