export declare const sshdPath: string | undefined
/** Why the host tests cannot run here (printed once as a skip line), or undefined when they can. */
export declare function sshdMissing(): string | undefined
export interface TestHost {
  /** The alias in `config` (`Host h1`). */
  alias: string
  port: number
  /** Its own job folder, so two "hosts" on one machine never share jobs. */
  dir: string
  /** Stop its sshd and every session it serves (a host gone dark); its jobs are left to the caller. */
  stop(): Promise<void>
  start(): Promise<void>
}
export interface SshdFixture {
  /** An ssh_config naming each host (`-F`), with the throwaway key and no known_hosts prompts. */
  config: string
  hosts: TestHost[]
  close(): Promise<void>
}
/** Real sshd daemons on 127.0.0.1, one per host, children of the caller, each ready when it says it listens. */
export declare function startSshd(
  count: number,
  options?: {
    /** Sessions skip the account's ~/.bashrc (`SetEnv SHLVL=1`). */
    leanShell?: boolean
    /** Variables every session gets (`SetEnv`), overriding the account's: a HOME and PATH of the caller's own. */
    env?: Record<string, string>
  }
): Promise<SshdFixture>
