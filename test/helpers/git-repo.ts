import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {execa} from 'execa'

/** A throwaway repository for one test: git commands here throw, unlike mdplan's. */
export interface TempRepo {
  root: string
  git(...args: string[]): Promise<string>
  write(path: string, content: string): Promise<void>
  read(path: string): Promise<string>
  /** Write files and commit them all. */
  commit(message: string, files?: Record<string, string>): Promise<string>
  cleanup(): Promise<void>
}

// The test's own commits carry this identity; mdplan's commits must manage with none (see isolateGitConfig).
const testIdentity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com']

/**
 * Make git ignore the machine's global and system config, so tests behave the
 * same on a fresh CI box (no identity, no init.defaultBranch) as on a laptop.
 */
export async function isolateGitConfig(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-gitconfig-'))
  const file = join(dir, 'gitconfig')
  await writeFile(file, '')
  process.env.GIT_CONFIG_GLOBAL = file
  process.env.GIT_CONFIG_NOSYSTEM = '1'
  for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete process.env[name]
}

export async function tempRepo(files: Record<string, string> = {'README.md': '# test\n'}): Promise<TempRepo> {
  const root = await mkdtemp(join(tmpdir(), 'mdplan-git-'))
  const git = async (...args: string[]) => {
    const result = await execa('git', [...testIdentity, ...args], {cwd: root, env: {GIT_TERMINAL_PROMPT: '0'}})
    return result.stdout
  }
  const write = async (path: string, content: string) => {
    await mkdir(dirname(join(root, path)), {recursive: true})
    await writeFile(join(root, path), content)
  }
  const repo: TempRepo = {
    root,
    git,
    write,
    read: (path) => readFile(join(root, path), 'utf8'),
    async commit(message, more = {}) {
      for (const [path, content] of Object.entries(more)) await write(path, content)
      await git('add', '-A')
      await git('commit', '--quiet', '--allow-empty', '-m', message)
      return git('rev-parse', 'HEAD')
    },
    cleanup: () => rm(root, {recursive: true, force: true})
  }
  await git('init', '--quiet', '-b', 'main')
  await repo.commit('initial', files)
  return repo
}

/** A folder that is not in any repository. */
export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'mdplan-nogit-'))
}
