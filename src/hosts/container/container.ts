import {existsSync} from 'node:fs'
import {readdir, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {fetchResult} from '../fetch-result.js'
import {isSafeKey} from '../job-key.js'
import {staleStaging} from '../staging.js'
import {shellWord} from '../../util/shell-word.js'
import {containerCli, onPath} from './container-cli.js'
import {runContainer} from './container-run.js'

/**
 * A container per attempt, named by its key, with the podman or docker CLI
 * (so `DOCKER_HOST` and contexts work as users expect; the job folder is a
 * bind mount, so the engine must see this machine's files). The name is the
 * idempotency guard: a second `run --name <key>` is refused, and mdplan
 * attaches to the container that has it. `--rm` is off until the result is
 * collected; engine retries are off (`--restart no`).
 */
export function containerHost(spec: HostSpec, context: {root: string; scratch: string}): Host {
  const cli = containerCli(spec.engine)
  const jobs = spec.dir ?? join(context.root, '.mdplan', 'jobs')
  const folder = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return join(jobs, key)
  }
  const remove = async (key: string): Promise<boolean> => {
    const gone = await cli.remove(key)
    if (gone) await rm(folder(key), {recursive: true, force: true})
    return gone
  }
  const stop = async (key: string): Promise<void> => {
    // Marked only once the container is gone: a rerun starts the job again in the folder, never beside it.
    if ((await cli.remove(key)) && existsSync(folder(key)) && !existsSync(join(folder(key), 'rc'))) await writeFile(join(folder(key), 'stopped'), '')
  }

  return {
    spec,
    run: (job, command) => runContainer({spec, cli, job, command, jobs, folder, scratch: context.scratch, cancel: remove, stop}),

    async collect({key, root: repo, branch, base}) {
      if (!existsSync(join(folder(key), 'rc'))) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
      return fetchResult({root: repo, file: join(folder(key), 'result.bundle'), key, branch, base})
    },

    async cancel(keys) {
      for (const key of keys) await remove(key)
    },

    async list(prefix) {
      const answer = await cli.run(['ps', '-a', '--filter', 'label=mdplan.key', '--format', '{{.Names}}'])
      if (answer.exitCode !== 0) return undefined
      const named = answer.stdout.split('\n').filter((name) => isSafeKey(name) && name.startsWith(prefix))
      const names = existsSync(jobs) ? await readdir(jobs) : []
      // What a submit killed mid-way left (it never became a job), once its run is gone.
      for (const name of names) if (staleStaging(name, prefix)) await rm(join(jobs, name), {recursive: true, force: true})
      return [...new Set([...named, ...names.filter((name) => isSafeKey(name) && name.startsWith(prefix))])]
    },

    async preflight(executables) {
      const name = `host ${spec.name} (${cli.engine} ${spec.image})`
      if (!onPath(cli.engine)) return [`${name}: \`${cli.engine}\` is not installed; install podman or docker, or set \`engine:\``]
      const image = await cli.run(['image', 'inspect', spec.image!])
      if (image.exitCode !== 0) return [`${name}: the image ${spec.image} is not there; build or pull it (\`${cli.engine} pull ${shellWord(spec.image!)}\`)`]
      const tools = ['git', 'xargs', ...executables].map((tool) => `command -v ${tool} > /dev/null || echo "missing ${tool}"`).join('; ')
      const answer = await cli.run(['run', '--rm', '--network', 'none', spec.image!, 'sh', '-c', tools])
      if (answer.exitCode !== 0) return [`${name}: a container of ${spec.image} does not start: ${answer.stderr.trim().split('\n').at(-1)}`]
      return answer.stdout
        .split('\n')
        .filter((line) => line.startsWith('missing '))
        .map((line) => `${name}: \`${line.slice(8)}\` is not in the image; add it to ${spec.image}`)
    },

    close: async () => undefined
  }
}
