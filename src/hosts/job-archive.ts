import {createReadStream, createWriteStream, rmSync} from 'node:fs'
import {mkdtemp, readdir, rm, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import tarStream from 'tar-stream'
import {identityArgs} from '../git/identity-args.js'
import {gitReason, runGit} from '../git/run-git.js'
import type {HostJob} from './host.js'
import type {HostCommand} from '../process/process-types.js'
import {runScript} from './job-scripts.js'
import {makeDir} from '../util/make-dir.js'

/**
 * What of the base commit travels with a job: all of its history (`full`),
 * nothing (the host already holds it), or what the host lacks beyond commits
 * it is known to hold (`not`).
 */
export type BaseShipping = 'full' | 'none' | {not: readonly string[]}

/** A job's archive on this machine, until it is sent: `dispose` removes it. */
export interface JobArchive {
  file: string
  dispose: () => Promise<void>
}

/**
 * Everything a job needs on its host, as one tar file: the base commit as a
 * git bundle, argv (NUL-separated, so it stays an array), stdin, `job` (the
 * base, the bundle's ref, the branch, the plan's folder in the repository,
 * the committer's name and email, the key, the key of the earlier job whose
 * folder it goes on in or nothing: a line each), the
 * environment (a 0600 file that run.sh reads and deletes: credentials never
 * in argv), and the commit message that carries the key. Written here
 * (tar-stream), not by a `tar` process. Returns the tar's path. It is made in
 * `scratch` (the plan's `.mdplan/host-files/`), never the system's temp folder:
 * what a killed run left there is the plan's, and the next run removes it.
 */
export async function jobArchive(job: HostJob, command: HostCommand, env: Record<string, string>, shipping: BaseShipping, scratch: string): Promise<JobArchive | {error: string}> {
  await sweepScratch(scratch)
  const dir = await mkdtemp(join(scratch, `job-${process.pid}-`))
  const dispose = (): Promise<void> => rm(dir, {recursive: true, force: true})
  const {root, base, branch, prefix, message} = job.git!
  try {
    const bundle = shipping === 'none' ? undefined : await baseBundle(root, base, shipping === 'full' ? [] : shipping.not, scratch)
    if (bundle !== undefined && typeof bundle !== 'string') return await fail(dispose, bundle.error)
    // Undefined: the host holds all of it already (a commit it holds descends from the base).
    const identity = await identityOf(root)
    // What the job's scripts read with `read`, one value a line: a file each would be six more to write and unpack.
    const values = [base, bundleRef(base), branch, prefix, identity.name, identity.email, job.key, job.work ?? ''].map((value) => value.replace(/\n/g, ' '))
    const files: Record<string, string> = {
      'run.sh': runScript,
      argv: [command.file, ...command.args].map((arg) => `${arg}\0`).join(''),
      'env.sh': Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}\n`).join(''),
      job: values.map((value) => `${value}\n`).join(''),
      message: `${message}\n\nMdplan-Key: ${job.key}\n`
    }
    if (command.input !== undefined) files.input = command.input
    // The bundle holds the whole history: a cache that cannot take even that is broken (see submitScript).
    if (shipping === 'full') files.whole = ''
    const file = join(dir, 'job.tar')
    const pack = tarStream.pack()
    const written = pipeline(pack, createWriteStream(file, {mode: 0o600}))
    const mtime = new Date()
    for (const [name, text] of Object.entries(files)) pack.entry({name, mode: name === 'env.sh' ? 0o600 : 0o644, mtime}, Buffer.from(text))
    if (bundle !== undefined) {
      const entry = pack.entry({name: 'base.bundle', mode: 0o644, mtime, size: (await stat(bundle)).size})
      await pipeline(createReadStream(bundle), entry)
    }
    pack.finalize()
    await written
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
const bundles = new Map<string, Promise<string | undefined | {error: string}>>()
let made = 0
// One at a time: each names the base by the same ref while it is made.
let making: Promise<unknown> = Promise.resolve()
/** Where this run makes its bundles, by scratch folder. */
const bundleDirs = new Map<string, string>()

function bundleRef(base: string): string {
  return `refs/mdplan/bases/${base}`
}

function baseBundle(root: string, base: string, not: readonly string[], scratch: string): Promise<string | undefined | {error: string}> {
  const key = [root, base, ...not].join('\0')
  let bundle = bundles.get(key)
  if (!bundle) {
    bundle = making.then(() => makeBundle(root, base, not, scratch))
    making = bundle
    bundles.set(key, bundle)
    void bundle.then((result) => typeof result === 'object' && bundles.delete(key))
  }
  return bundle
}

async function makeBundle(root: string, base: string, not: readonly string[], scratch: string): Promise<string | undefined | {error: string}> {
  let bundleDir = bundleDirs.get(scratch)
  if (!bundleDir) {
    bundleDir = await mkdtemp(join(scratch, `bundles-${process.pid}-`))
    bundleDirs.set(scratch, bundleDir)
    const made = bundleDir
    process.once('exit', () => rmSync(made, {recursive: true, force: true}))
  }
  // A bundle carries refs, not bare commits: a ref of its own names the base while the bundle is made.
  const ref = bundleRef(base)
  const file = join(bundleDir, `${base}-${++made}.bundle`)
  const updated = await runGit(root, ['update-ref', ref, base])
  if (!updated.ok) return {error: gitReason(updated, 'git update-ref')}
  // The host's cache may hold commits this repository never had (another repository's): those are passed over.
  let bundled = await runGit(root, ['bundle', 'create', file, ref, ...(not.length > 0 ? ['--ignore-missing', '--not', ...not] : [])])
  const empty = !bundled.ok && /empty bundle/i.test(bundled.stderr)
  if (!bundled.ok && !empty && not.length > 0) bundled = await runGit(root, ['bundle', 'create', file, ref])
  await runGit(root, ['update-ref', '-d', ref])
  if (empty && not.length > 0) return undefined
  return bundled.ok ? file : {error: gitReason(bundled, 'git bundle create')}
}

const swept = new Set<string>()

/**
 * Once per run and folder: make `scratch`, and remove what runs that are gone left in it (archives and
 * bundles are named by their run's pid; a pid that lives is left alone, whoever it is now).
 */
async function sweepScratch(scratch: string): Promise<void> {
  if (swept.has(scratch)) return
  swept.add(scratch)
  makeDir(scratch)
  for (const name of await readdir(scratch).catch(() => [] as string[])) {
    const pid = Number(/^(?:job|bundles)-(\d+)-/.exec(name)?.[1])
    if (pid > 0 && pid !== process.pid && !alive(pid)) await rm(join(scratch, name), {recursive: true, force: true})
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
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
