import {chmod, copyFile, link, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {rmSync} from 'node:fs'
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
    await mkdir(spec)
    const bundle = await baseBundle(root, base)
    if (typeof bundle !== 'string') return await fail(dispose, bundle.error)
    await link(bundle, join(spec, 'base.bundle')).catch(() => copyFile(bundle, join(spec, 'base.bundle')))
    const ref = bundleRef(base)
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

// Launches made together start from the same commit: one bundle serves them all (and each rerun of it).
const bundles = new Map<string, Promise<string | {error: string}>>()
let bundleDir: string | undefined

function bundleRef(base: string): string {
  return `refs/mdplan/bases/${base}`
}

function baseBundle(root: string, base: string): Promise<string | {error: string}> {
  const key = `${root}\0${base}`
  let made = bundles.get(key)
  if (!made) {
    made = makeBundle(root, base)
    bundles.set(key, made)
    void made.then((result) => typeof result !== 'string' && bundles.delete(key))
  }
  return made
}

async function makeBundle(root: string, base: string): Promise<string | {error: string}> {
  if (!bundleDir) {
    bundleDir = await mkdtemp(join(tmpdir(), 'mdplan-bundles-'))
    const made = bundleDir
    process.once('exit', () => rmSync(made, {recursive: true, force: true}))
  }
  // A bundle carries refs, not bare commits: a ref of its own names the base while the bundle is made.
  const ref = bundleRef(base)
  const file = join(bundleDir, `${base}-${bundles.size}.bundle`)
  const updated = await runGit(root, ['update-ref', ref, base])
  if (!updated.ok) return {error: gitReason(updated, 'git update-ref')}
  const bundled = await runGit(root, ['bundle', 'create', file, ref])
  await runGit(root, ['update-ref', '-d', ref])
  return bundled.ok ? file : {error: gitReason(bundled, 'git bundle create')}
}

const identities = new Map<string, Promise<{name: string; email: string}>>()

function identityOf(root: string): Promise<{name: string; email: string}> {
  let identity = identities.get(root)
  if (!identity) identities.set(root, (identity = readIdentity(root)))
  return identity
}

async function readIdentity(root: string): Promise<{name: string; email: string}> {
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
