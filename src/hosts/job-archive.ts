import {chmod, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {identityArgs} from '../git/identity-args.js'
import {gitReason, runGit} from '../git/run-git.js'
import type {HostCommand, HostJob} from './host.js'
import {runScript} from './job-scripts.js'

/**
 * Everything a job needs on its host, as one tar file: the base commit as a
 * git bundle, argv (NUL-separated, so it stays an array), stdin, the
 * environment (a 0600 file that run.sh reads and deletes: credentials never
 * in argv), and the commit message that carries the key. Returns the tar's path.
 */
export async function jobArchive(job: HostJob, command: HostCommand, env: Record<string, string>): Promise<{file: string; dispose: () => Promise<void>} | {error: string}> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-job-'))
  const dispose = (): Promise<void> => rm(dir, {recursive: true, force: true})
  const spec = join(dir, 'spec')
  const {root, base, branch, prefix, message} = job.git
  try {
    await execa('mkdir', [spec])
    // A ref of its own names the base in the bundle (a bundle carries refs, not bare commits).
    const ref = `refs/mdplan/jobs/${job.key}`
    const updated = await runGit(root, ['update-ref', ref, base])
    if (!updated.ok) return await fail(dispose, gitReason(updated, 'git update-ref'))
    const bundled = await runGit(root, ['bundle', 'create', join(spec, 'base.bundle'), ref])
    await runGit(root, ['update-ref', '-d', ref])
    if (!bundled.ok) return await fail(dispose, gitReason(bundled, 'git bundle create'))
    const identity = await identityOf(root)
    const files: Record<string, string> = {
      'run.sh': runScript,
      argv: [command.file, ...command.args].map((arg) => `${arg}\0`).join(''),
      'env.sh': Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}\n`).join(''),
      ref,
      base,
      branch,
      prefix,
      message: `${message}\n\nMdplan-Key: ${job.key}\n`,
      name: identity.name,
      email: identity.email
    }
    if (command.input !== undefined) files.input = command.input
    for (const [name, text] of Object.entries(files)) await writeFile(join(spec, name), text)
    await chmod(join(spec, 'env.sh'), 0o600)
    const file = join(dir, 'job.tar')
    await execa('tar', ['-c', '-f', file, '-C', spec, '.'])
    return {file, dispose}
  } catch (error) {
    return await fail(dispose, error instanceof Error ? error.message : String(error))
  }
}

async function fail(dispose: () => Promise<void>, error: string): Promise<{error: string}> {
  await dispose()
  return {error}
}

async function identityOf(root: string): Promise<{name: string; email: string}> {
  const args = await identityArgs(root)
  const configured = async (key: string): Promise<string> => (await runGit(root, ['config', key], {retryOnLock: false})).stdout.trim()
  const name = args.includes('user.name=mdplan') ? 'mdplan' : await configured('user.name')
  const email = args.includes('user.email=mdplan@localhost') ? 'mdplan@localhost' : await configured('user.email')
  return {name: name || 'mdplan', email: email || 'mdplan@localhost'}
}

/** One shell word, whatever it holds. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}
