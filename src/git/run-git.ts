import {execa} from 'execa'
import {helperExec} from '../process/spawn-helper.js'

/** What one git command did. Failures are values: callers decide what a non-zero exit means. */
export interface GitResult {
  ok: boolean
  exitCode: number
  /** Raw stdout: `-z` output keeps its NUL separators and nothing is trimmed. */
  stdout: string
  stderr: string
}

export interface RunGitOptions {
  /** Written to git's stdin (e.g. `--stdin-paths`). */
  input?: string
  env?: Record<string, string>
  /** Retries when another process holds `index.lock` / `config.lock` (default true). */
  retryOnLock?: boolean
  /** Told each git process's pid as it starts (a commit records them: see `withCommitMarker`). */
  onStart?: (pid: number) => void
}

// Agents run git themselves in the same repository, so a held lock is normal and short-lived.
const lockHeld = /\.lock': File exists|Unable to create '[^']*\.lock'|could not lock config file/i
const lockDelaysMs = [50, 100, 200, 300, 500, 800, 1000, 1500]

/**
 * Run `git <args>` in `cwd` without a shell. Pathspecs are literal (plan paths
 * such as `app/[id]/route.ts` are not globs), prompts are off (a run must never
 * hang on a credential question) and optional locks are skipped (a status
 * refresh must not take `index.lock` from an agent).
 */
export async function runGit(cwd: string, args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  const retry = options.retryOnLock ?? true
  const env = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_MERGE_AUTOEDIT: 'no',
    GIT_EDITOR: 'true',
    LC_ALL: 'C',
    ...options.env
  }
  for (let attempt = 0; ; attempt++) {
    // During a run, through the spawn helper (a launch's and a check's snapshot would fork mdplan's large
    // process). Not when the caller needs the pid at once (a commit's marker), nor outside a run.
    const viaHelper = options.onStart ? undefined : helperExec('git', ['--literal-pathspecs', ...args], {cwd, env: {...process.env, ...env}, input: options.input ?? ''})
    const result = viaHelper ? await viaHelper : await execaGit(cwd, args, env, options)
    const stdout = typeof result.stdout === 'string' ? result.stdout : ''
    const stderr = typeof result.stderr === 'string' ? result.stderr : ''
    const exitCode = result.exitCode ?? -1
    // No exit code means git did not start (missing binary, missing cwd): keep execa's message.
    const why = stderr !== '' || result.exitCode !== undefined ? stderr : (result.message ?? result.shortMessage ?? '')
    const done: GitResult = {ok: exitCode === 0 && !('failed' in result && result.failed), exitCode, stdout, stderr: why}
    const delay = lockDelaysMs[attempt]
    if (done.ok || !retry || delay === undefined || !lockHeld.test(stderr)) return done
    await new Promise((resolve) => setTimeout(resolve, delay))
  }
}

async function execaGit(cwd: string, args: readonly string[], env: Record<string, string>, options: RunGitOptions) {
  const subprocess = execa('git', ['--literal-pathspecs', ...args], {cwd, reject: false, stripFinalNewline: false, input: options.input ?? '', env})
  if (subprocess.pid !== undefined) options.onStart?.(subprocess.pid)
  return subprocess
}

/** Split NUL-separated output (`-z`) into its non-empty fields. */
export function splitNul(text: string): string[] {
  return text.split('\0').filter((field) => field !== '')
}

/** The first line of git's complaint, for a one-line reason. */
export function gitReason(result: GitResult, what: string): string {
  const line = (result.stderr || result.stdout).split('\n').map((l) => l.trim()).find((l) => l !== '')
  return line ? `${what}: ${line}` : `${what}: git exited with ${result.exitCode}`
}
