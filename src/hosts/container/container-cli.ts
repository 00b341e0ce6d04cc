import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {execa} from 'execa'

/** The podman or docker CLI, as the user has it (so `DOCKER_HOST` and contexts work as users expect). */
export interface ContainerCli {
  engine: string
  run(args: readonly string[], options?: {signal?: AbortSignal}): Promise<{exitCode?: number; stdout: string; stderr: string}>
  /** The container's state, `missing` when the engine has none by that name, undefined when the engine does not answer. */
  inspect(key: string): Promise<string | undefined>
  /** Remove the container, ending it if it runs; true once the engine confirms it has none by that name. */
  remove(key: string): Promise<boolean>
}

export function containerCli(engineName: string | undefined): ContainerCli {
  const engine = engineName ?? (onPath('podman') ? 'podman' : 'docker')
  const cli: ContainerCli = {
    engine,
    async run(args, options = {}) {
      const answer = await execa(engine, args, {reject: false, stdin: 'ignore', ...(options.signal ? {cancelSignal: options.signal} : {})})
      return {exitCode: answer.exitCode, stdout: String(answer.stdout), stderr: String(answer.stderr)}
    },
    async inspect(key) {
      const answer = await cli.run(['container', 'inspect', '--format', '{{.State.Status}}', key])
      if (answer.exitCode === 0) return answer.stdout.trim()
      return /no such|not found|no container/i.test(answer.stderr) ? 'missing' : undefined
    },
    async remove(key) {
      for (let tries = 0; tries < 5; tries++) {
        await cli.run(['rm', '-f', '-t', '2', key])
        if ((await cli.inspect(key)) === 'missing') return true
        await sleep(500 * (tries + 1))
      }
      return false
    }
  }
  return cli
}

export function onPath(file: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, file)))
}
