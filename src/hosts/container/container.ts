import {createWriteStream, existsSync} from 'node:fs'
import {mkdir, open, readdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {execa} from 'execa'
import {DetachRequest} from '../detach-request.js'
import type {Host, HostRun} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {fetchResult} from '../fetch-result.js'
import {jobArchive} from '../job-archive.js'
import {isSafeKey} from '../job-key.js'
import {lineSplitter} from '../../process/line-splitter.js'
import {shellWord} from '../../util/shell-word.js'
import {makeDir} from '../../util/make-dir.js'

/** Where the job folder is mounted inside the container. */
const mount = '/mdplan/job'

/**
 * A container per attempt, named by its key, with the podman or docker CLI
 * (so `DOCKER_HOST` and contexts work as users expect; the job folder is a
 * bind mount, so the engine must see this machine's files). The name is the
 * idempotency guard: a second `run --name <key>` is refused, and mdplan
 * attaches to the container that has it. `--rm` is off until the result is
 * collected; engine retries are off (`--restart no`).
 */
export function containerHost(spec: HostSpec, root: string): Host {
  const engine = spec.engine ?? (onPath('podman') ? 'podman' : 'docker')
  const jobs = spec.dir ?? join(root, '.mdplan', 'jobs')
  const folder = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return join(jobs, key)
  }
  const cli = (args: readonly string[], options: {signal?: AbortSignal} = {}) =>
    execa(engine, args, {reject: false, stdin: 'ignore', ...(options.signal ? {cancelSignal: options.signal} : {})})
  /** The container's state, `missing` when the engine has none by that name, undefined when the engine does not answer. */
  const inspect = async (key: string): Promise<string | undefined> => {
    const answer = await cli(['container', 'inspect', '--format', '{{.State.Status}}', key])
    if (answer.exitCode === 0) return String(answer.stdout).trim()
    return /no such|not found|no container/i.test(String(answer.stderr)) ? 'missing' : undefined
  }

  const stopJob = async (key: string): Promise<void> => {
    const removed = (await cli(['rm', '-f', '-t', '2', key])).exitCode === 0 || (await inspect(key)) === 'missing'
    // Marked only once the container is gone: a rerun starts the job again in the folder, never beside it.
    if (removed && existsSync(folder(key)) && !existsSync(join(folder(key), 'rc'))) await writeFile(join(folder(key), 'stopped'), '')
  }

  return {
    spec,

    async run(job, command) {
      const dir = folder(job.key)
      const base = {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false}
      if (job.signal?.aborted) return {...base, interrupted: true}
      makeDir(dirname(job.logFile))
      const log = createWriteStream(job.logFile, {flags: 'a'})
      const lines = lineSplitter(command.onLine)
      const out: Buffer[] = []
      let offset = 0
      const stop = new AbortController()
      let interrupted = false
      let timedOut = false
      const onAbort = (): void => ((interrupted = true), stop.abort())
      job.signal?.addEventListener('abort', onAbort, {once: true})
      const timer = job.timeoutMs ? setTimeout(() => ((timedOut = true), stop.abort()), job.timeoutMs) : undefined
      const finish = async (result: Partial<HostRun>): Promise<HostRun> => {
        if (timer) clearTimeout(timer)
        job.signal?.removeEventListener('abort', onAbort)
        await drain()
        lines.end()
        if (result.stderr) log.write(result.stderr)
        log.end()
        return {...base, stdout: Buffer.concat(out).toString('utf8'), ...result}
      }
      const drain = async (): Promise<void> => {
        const handle = await open(join(dir, 'out'), 'r').catch(() => undefined)
        if (!handle) return
        try {
          for (;;) {
            const chunk = Buffer.alloc(64 * 1024)
            const {bytesRead} = await handle.read(chunk, 0, chunk.length, offset)
            if (bytesRead === 0) return
            const data = chunk.subarray(0, bytesRead)
            offset += bytesRead
            out.push(data)
            log.write(data)
            lines.push(data)
          }
        } finally {
          await handle.close()
        }
      }

      let attached = false
      const state = job.reattach ? await inspect(job.key) : 'missing'
      if (state === 'missing' && !existsSync(join(dir, 'rc'))) {
        const env: Record<string, string> = {...command.env}
        for (const name of spec.env) if (process.env[name] !== undefined) env[name] = process.env[name]!
        const archive = await jobArchive(job, command, env)
        if ('error' in archive) return finish({spawnFailed: true, error: archive.error})
        await mkdir(jobs, {recursive: true})
        // The folder first (ours alone by mkdir), then the name: whichever a second submit meets, it attaches.
        const fresh = await mkdir(dir).then(() => true, () => false)
        // A job Ctrl-C stopped starts again in its folder, its clone kept (the rename is the guard, as on ssh hosts).
        const again = !fresh && (await rename(join(dir, 'stopped'), join(dir, 'restart')).then(() => true, () => false))
        if (again) for (const name of await readdir(dir)) if (name !== 'work') await rm(join(dir, name), {recursive: true, force: true})
        if (fresh || again) await execa('tar', ['-x', '-f', archive.file, '-C', dir])
        await archive.dispose()
        // Going on with an earlier job's session: its clone is mounted where every job's clone is, so the agent runs
        // in the same folder (a CLI finds its sessions by the folder) with the work it left.
        const earlier = job.work !== undefined && existsSync(join(folder(job.work), 'work', '.git', 'mdplan-ready')) ? ['-v', `${join(folder(job.work), 'work')}:${mount}/work`] : []
        const started = await cli(['run', '-d', '--name', job.key, '--label', `mdplan.key=${job.key}`, '--restart', 'no', '--network', 'host', '-v', `${dir}:${mount}`, ...earlier, '--workdir', mount, spec.image!, 'sh', `${mount}/run.sh`, mount])
        if (started.exitCode !== 0 && !/already in use|already exists|Conflict/i.test(String(started.stderr))) {
          // The answer may be lost while the engine started it: only a container the engine does not know is a failed submit.
          if ((await inspect(job.key)) === 'missing') return finish({spawnFailed: true, error: `${engine} run: ${String(started.stderr).trim().split('\n').at(-1)}`})
        }
        attached = started.exitCode !== 0
      } else attached = true

      // Follow the job's output file from the offset; the engine says when the container ended.
      let lastContact = Date.now()
      for (;;) {
        await drain()
        if (stop.signal.aborted) {
          // After a lost lock the container may be the new owner's: stop following it, leave it running. Ctrl-C
          // removes the container and keeps its folder, marked stopped (stop-script.ts says why); a timeout removes both.
          if (!DetachRequest.asked(job.signal)) await (timedOut ? this.cancel([job.key]) : stopJob(job.key))
          return finish({interrupted, timedOut})
        }
        const now = await inspect(job.key)
        if (now !== undefined) lastContact = Date.now()
        else if (Date.now() - lastContact > spec.leaseMs) return finish({lost: true, error: `host lost: ${spec.name}`})
        if (now === 'exited' || now === 'stopped' || now === 'missing') {
          await drain()
          const rc = await readFile(join(dir, 'rc'), 'utf8').catch(() => undefined)
          const stderr = await readFile(join(dir, 'err'), 'utf8').catch(() => '')
          if (rc === undefined) return finish({signal: 'SIGKILL', stderr, error: `the container ${job.key} ended without a result`, attached})
          return finish({exitCode: Number(rc.trim()), stderr, attached})
        }
        await sleep(100, undefined, {signal: stop.signal}).catch(() => undefined)
      }
    },

    async collect({key, root: repo, branch, base}) {
      if (!existsSync(join(folder(key), 'rc'))) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
      return fetchResult({root: repo, file: join(folder(key), 'result.bundle'), key, branch, base})
    },

    async cancel(keys) {
      for (const key of keys) {
        await cli(['rm', '-f', '-t', '2', key])
        await rm(folder(key), {recursive: true, force: true})
      }
    },

    async list(prefix) {
      const answer = await cli(['ps', '-a', '--filter', 'label=mdplan.key', '--format', '{{.Names}}'])
      if (answer.exitCode !== 0) return undefined
      const named = String(answer.stdout).split('\n').filter((name) => isSafeKey(name) && name.startsWith(prefix))
      const folders = existsSync(jobs) ? (await readdir(jobs)).filter((name) => isSafeKey(name) && name.startsWith(prefix)) : []
      return [...new Set([...named, ...folders])]
    },

    async preflight(executables) {
      const name = `host ${spec.name} (${engine} ${spec.image})`
      if (!onPath(engine)) return [`${name}: \`${engine}\` is not installed; install podman or docker, or set \`engine:\``]
      const image = await cli(['image', 'inspect', spec.image!])
      if (image.exitCode !== 0) return [`${name}: the image ${spec.image} is not there; build or pull it (\`${engine} pull ${shellWord(spec.image!)}\`)`]
      const tools = ['git', 'xargs', ...executables].map((tool) => `command -v ${tool} > /dev/null || echo "missing ${tool}"`).join('; ')
      const answer = await cli(['run', '--rm', '--network', 'none', spec.image!, 'sh', '-c', tools])
      if (answer.exitCode !== 0) return [`${name}: a container of ${spec.image} does not start: ${String(answer.stderr).trim().split('\n').at(-1)}`]
      return String(answer.stdout)
        .split('\n')
        .filter((line) => line.startsWith('missing '))
        .map((line) => `${name}: \`${line.slice(8)}\` is not in the image; add it to ${spec.image}`)
    },

    close: async () => undefined
  }
}

function onPath(file: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, file)))
}
