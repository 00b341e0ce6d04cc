import {createWriteStream, type WriteStream} from 'node:fs'
import {rename, rm, writeFile} from 'node:fs/promises'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import type {HostBases} from '../host-bases.js'
import {jobArchive, type JobArchive} from '../job-archive.js'
import {jobAttempt, type JobAttempt} from '../job-attempt.js'
import {jobControlReader, type JobControl} from '../job-control.js'
import {followScript, submitScript} from '../job-scripts.js'
import type {SshTransport} from './ssh-transport.js'

/** How long ssh takes to notice a dead connection (ServerAliveInterval × ServerAliveCountMax in ssh-transport.ts). */
const keepaliveMs = 15_000

export interface SshRunInput {
  spec: HostSpec
  dir: string
  transport: SshTransport
  job: HostJob
  command: HostCommand
  /** End the job and remove its folder; false when the host did not answer. */
  cancel: (key: string) => Promise<boolean>
  /** Ctrl-C's end: the job's processes ended, its folder (its clone, the agent's work) kept for the rerun (stop-script.ts). */
  stop: (key: string) => Promise<void>
  /** Where a job's result bundle is kept once it came home with the end of its output, by key. */
  resultFile: (key: string) => string
  /** What the host's cache holds: what of the base a submit must carry. */
  bases: HostBases
  /** The plan's folder for files in flight (the job's archive). */
  scratch: string
}

/** What one call (submit and follow, or follow) said on stderr. */
interface Heard {
  said: Set<JobControl['word']>
  rc?: number
  fetchWhy?: string
}

/**
 * One attempt on an ssh host: submit its archive (or find the job its key names) and follow its output from
 * a byte offset, so a dropped connection resumes where it broke and a rerun replays from byte 0. Its stdout
 * streams into the frame; its stderr is read as it comes (job-control.ts): control lines, the job's stderr,
 * and the result bundle, written to a file as it arrives. A host silent past its lease loses the attempt.
 */
export async function runSshJob(input: SshRunInput): Promise<HostRun> {
  const {spec, transport, job} = input
  const frame = jobAttempt(job, input.command, {passed: spec.env, host: spec})
  if (frame.stop.aborted) return frame.finish({})
  const submission = new Submission(input, frame)
  frame.onFinish(() => submission.dispose())
  const state = {phase: job.reattach ? ('follow' as const) : ('submit' as const), submitted: false, offset: 0}
  for (let wait = 200; ; ) {
    if (frame.stop.aborted) return frame.stopped({cancel: async () => void (await input.cancel(job.key)), stop: () => input.stop(job.key)})
    if (frame.silent) return frame.lost()
    if ((await transport.connect()).ok) {
      const archive = state.phase === 'submit' ? await submission.archive() : undefined
      // Stopped while it waited for the host's first base: nothing was sent, nothing is.
      if (archive === 'stopped') continue
      if (archive && 'error' in archive) return frame.finish({spawnFailed: true, error: archive.error})
      const heard = await call(input, frame, state, archive?.file, submission)
      const next = await settle(input, frame, state, heard, submission)
      if (next === 'again') continue
      if (next !== 'wait') return next
    }
    if (frame.stop.aborted) continue
    await frame.pause(wait)
    wait = Math.min(wait * 2, 2000)
  }
}

/** One call: submitting follows in it (one round trip per launch); a rerun first follows only (attach). */
async function call(input: SshRunInput, frame: JobAttempt, state: {phase: 'submit' | 'follow'; offset: number}, archive: string | undefined, submission: Submission): Promise<Heard> {
  const {dir, job, transport} = input
  const heard: Heard = {said: new Set()}
  const bundle = new BundleFile(input.resultFile(job.key))
  const reader = jobControlReader({
    control(said) {
      heard.said.add(said.word)
      if (said.word === 'rc') heard.rc = said.code
      if (said.word === 'fetch') heard.fetchWhy = said.text
      // The answer to the submit comes first, while the job runs: the host's first base is there, others may go.
      if (said.word === 'submitted' || said.word === 'exists') submission.taken()
    },
    text: (chunk) => frame.err(chunk),
    bundle: (chunk) => bundle.write(chunk),
    bundleEnd: () => bundle.complete()
  })
  const onStdout = (chunk: Buffer): void => {
    frame.heard()
    state.offset += chunk.length
    frame.out(chunk)
  }
  const script = archive !== undefined ? submitScript + followScript : followScript
  await transport.exec(script, [dir, job.key, String(state.offset)], {...(archive !== undefined ? {inputFile: archive} : {}), signal: frame.stop, onStdout, onStderr: (chunk) => reader.push(chunk)})
  reader.end()
  // A call that ended only now kept its connection until ssh's keepalive (5 s × 3) saw it break.
  frame.heard(Date.now() - keepaliveMs)
  if (heard.rc !== undefined) await bundle.keep()
  else await bundle.drop()
  return heard
}

/** What a call's end means: the attempt's result, another call at once (`again`), or one after a wait. */
async function settle(input: SshRunInput, frame: JobAttempt, state: {phase: 'submit' | 'follow'; submitted: boolean}, heard: Heard, submission: Submission): Promise<HostRun | 'again' | 'wait'> {
  const {spec, job} = input
  const said = (word: JobControl['word']): boolean => heard.said.has(word)
  if (said('submitted') || said('exists')) {
    frame.heard()
    state.submitted = true
    frame.attached ||= said('exists')
    state.phase = 'follow'
  } else if (state.phase === 'submit' && said('bad-archive')) {
    return frame.finish({spawnFailed: true, error: `${spec.name}: could not unpack the job ${job.key} there (disk full?)`})
  } else if (state.phase === 'submit' && said('need-base')) {
    // The cache lacks what the bundle was cut against (removed, or another repository's): ship the whole history once.
    const error = await submission.needBase(heard.fetchWhy)
    return error === undefined ? 'again' : frame.finish({spawnFailed: true, error})
  }
  if (heard.rc !== undefined) {
    frame.heard()
    return frame.finish({exitCode: heard.rc})
  }
  if (said('nostart')) {
    frame.heard()
    // Its folder is there but its script never began: the agent never ran. Ended and removed before it goes again.
    if (!(await input.cancel(job.key))) return frame.lost(`the job ${job.key} never started, and could not be removed`)
    return frame.notStarted(`the job ${job.key} never started on ${spec.name}`)
  }
  if (said('lost') || said('unknown') || said('cancelled')) frame.heard()
  // mdplan's own cancel ended it and was cut short (a second Ctrl-C): interrupted, not failed. Its leftovers
  // go, and a rerun submits it again under its key, as after one Ctrl-C (which removed the folder).
  if (said('cancelled') && !state.submitted) {
    await input.cancel(job.key)
    state.phase = 'submit'
    return 'again'
  }
  if (said('lost') || said('cancelled')) return frame.finish({signal: 'SIGKILL', error: `the job ${job.key} on ${spec.name} ended without a result`})
  if (said('unknown')) {
    // The host knows nothing of the key: a rerun submits it (under the same key), once.
    if (state.submitted) return frame.finish({spawnFailed: true, error: `the job ${job.key} vanished from ${spec.name}`})
    state.phase = 'submit'
    return 'again'
  }
  // No end heard: the connection broke; followed again from the offset.
  return 'wait'
}

/** A submit's archive, and its turn at the host's first base (see HostBases.turn). */
class Submission {
  #input: SshRunInput
  #frame: JobAttempt
  #archive: JobArchive | undefined
  #turn = false
  #wholeBase = false

  constructor(input: SshRunInput, frame: JobAttempt) {
    this.#input = input
    this.#frame = frame
  }

  async archive(): Promise<JobArchive | {error: string} | 'stopped'> {
    if (this.#archive) return this.#archive
    const {bases, job, command, scratch} = this.#input
    this.#turn ||= await bases.turn()
    if (this.#frame.stop.aborted) return 'stopped'
    const made = await jobArchive(job, command, this.#frame.env, this.#wholeBase ? 'full' : bases.shipping(job.git!.base), scratch)
    if ('file' in made) this.#archive = made
    return made
  }

  /** The host took the submit (or found the job): the base is there. */
  taken(): void {
    this.#input.bases.learn([this.#input.job.git!.base])
    this.#turn = false
  }

  /** The cache lacked the base: ship the whole history next, once; the error when even that was refused. */
  async needBase(why: string | undefined): Promise<string | undefined> {
    const {spec, dir, bases} = this.#input
    if (this.#wholeBase) return `${spec.name}: could not store the base commit in ${dir}/cache.git${why ? `: ${why}` : ''}`
    bases.forget()
    this.#wholeBase = true
    await this.#archive?.dispose()
    this.#archive = undefined
    return undefined
  }

  async dispose(): Promise<void> {
    await this.#archive?.dispose()
    if (this.#turn) this.#input.bases.release()
  }
}

/** A result bundle as it comes home: written to `<file>.part` as it streams, renamed to `file` once whole. */
class BundleFile {
  #file: string
  #stream: WriteStream | undefined
  #whole = false

  constructor(file: string) {
    this.#file = file
  }

  write(chunk: Buffer): void {
    this.#stream ??= createWriteStream(`${this.#file}.part`)
    this.#stream.write(chunk)
  }

  complete(): void {
    this.#whole = true
  }

  /** The job ended: its bundle, or an empty file when it made no commit (nothing to merge). */
  async keep(): Promise<void> {
    await this.#close()
    if (this.#stream && this.#whole) await rename(`${this.#file}.part`, this.#file)
    else await writeFile(this.#file, '')
  }

  async drop(): Promise<void> {
    await this.#close()
    await rm(`${this.#file}.part`, {force: true})
  }

  async #close(): Promise<void> {
    const stream = this.#stream
    if (stream) await new Promise<void>((resolve) => stream.end(() => resolve()))
  }
}
