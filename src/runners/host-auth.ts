/**
 * A runner's login, checked on another host (src/hosts/): the types a runner's `remoteAuth` speaks, so the
 * hosts ask each runner through its `Runner` and never by name.
 */

/** What a host's preflight said for one check: the CLI's answer if it was asked, and the facts it read. */
export interface HostSaid {
  answer?: {exitCode: number; stdout: string; stderr: string}
  /** `env NAME true|false|set`, `selected home|system|gemini-home TYPE`, `envfile`, `read`, `config` (see src/hosts/preflight-script.ts). */
  facts: readonly string[]
}

/**
 * A runner's login, checked on the host where its agents will run, in the
 * same round trip as the host's other checks: a CLI's own status command
 * (claude, codex, opencode's `auth list`), or what gemini reads there (its
 * settings files, the environment, `.env` files). A clear "logged out"
 * blocks, as the local preflight does, and so does a check that does not
 * answer within its limit (nothing launches unconfirmed).
 */
export interface AuthCheck {
  /** Its words for the host's preflight script: `cli EXE A B`, `gemini EXE`, or `opencode EXE NAMES`. */
  words: readonly string[]
  /** The problem (without the host's name), or undefined when what the host said is not a clear "logged out". */
  verdict(said: HostSaid): string | undefined
  /** The problem (without the host's name) when the check did not answer within `limitMs`. */
  slow(limitMs: number): string
}

/**
 * The project files that runners read their auth from (`Runner.projectAuthFiles`), as an agent's clone on a
 * host will hold them: the clone is made from a commit, so they are read from HEAD (src/hosts/project-auth-facts.ts).
 */
export interface ProjectFiles {
  /** The plan's folder in the repository (`a/b/` or empty): where the agents run. */
  prefix: string
  /** The text of each file asked for that HEAD holds, by its path from the repository's root. */
  texts: ReadonlyMap<string, string>
}

/** What a runner's `remoteAuth` is told. */
export interface RemoteAuthInput {
  /** The executable the jobs will start (an override such as MDPLAN_CLAUDE_BIN applies there too). */
  executable: string
  /** The host's `env:` names with their values here. */
  passed: NodeJS.ProcessEnv
  /** The host, as a problem names it (its address, else its name). */
  host: string
  /** What the agents' clone will hold of the files the runners asked for. */
  project: ProjectFiles
}

/** The plan's folder and each one above it up to the repository's root (`a/b/`, `a/`, ``): where a CLI looks up from. */
export function foldersUp(prefix: string): string[] {
  const folders = [prefix]
  for (let folder = prefix; folder !== ''; ) folders.push((folder = folder.replace(/[^/]*\/$/, '')))
  return folders
}
