import {execa} from 'execa'
import {helperSpawn} from './spawn-helper.js'
import {recordProcess} from './process-registry.js'
import type {AgentProcess, SpawnProcessOptions} from './process-types.js'

/**
 * Start an agent's process in its own process group, stdout and stderr
 * piped, failures as values. Through the spawn helper (a small long-lived
 * Node that forks agents, so a launch does not fork mdplan's large heap) unless
 * `MDPLAN_SPAWN_HELPER=0`; then with execa in this process.
 */
export function spawnProcess(file: string, args: readonly string[], options: SpawnProcessOptions): AgentProcess {
  if (process.env.MDPLAN_SPAWN_HELPER !== '0') return helperSpawn(file, args, options)
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: options.env === undefined,
    // Never an open pipe: codex exec and opencode run wait on it forever. `input` is written, then closed.
    ...(options.inputFile !== undefined ? {inputFile: options.inputFile} : options.input === undefined ? {stdin: 'ignore' as const} : {input: options.input}),
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
    buffer: false,
    reject: false
  })
  // In this process, synchronously after the fork (nothing of ours runs in between).
  if (options.registry !== undefined && subprocess.pid !== undefined) recordProcess(options.registry, subprocess.pid)
  return Object.assign(subprocess, {
    started: Promise.resolve(subprocess.pid),
    release: () => {
      subprocess.stdout?.destroy()
      subprocess.stderr?.destroy()
      subprocess.unref()
    }
  })
}
