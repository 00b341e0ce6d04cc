import {existsSync, writeFileSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll} from 'vitest'
import {isolateGitConfig} from './git-repo.js'
import {sshdMissing, startSshd, type SshdFixture} from './sshd.js'

/**
 * The real sshd of an end-to-end test file: `hosts` throwaway sshd "hosts" on 127.0.0.1, started before
 * its tests (git's config isolated) and closed after them, once the agents still waiting on a gate in
 * `gates` were let go. `missing`: why the file is skipped (said once on the console), when sshd is not there.
 */
export function sshdSuite(
  name: string,
  hosts: number
): {missing: string | undefined; gates: string[]; gitEnv: () => Record<string, string>; fixture: () => SshdFixture; jobFolders: (host?: number) => Promise<string[]>} {
  const missing = sshdMissing()
  if (missing) console.log(`${name}: skipped: ${missing}`)
  let sshd: SshdFixture | undefined
  const gates: string[] = []
  beforeAll(async () => {
    await isolateGitConfig()
    if (!missing) sshd = await startSshd(hosts)
  }, 30_000)
  afterAll(async () => {
    for (const go of gates) writeFileSync(go, '')
    if (gates.length > 0) await new Promise((resolve) => setTimeout(resolve, 300))
    await sshd?.close()
  })
  return {
    missing,
    gates,
    gitEnv: () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}),
    fixture: () => sshd!,
    // The job folders on host `host` (by index): what a run left there.
    jobFolders: async (host = 0) => {
      const jobs = join(sshd!.hosts[host]!.dir, 'jobs')
      return existsSync(jobs) ? await readdir(jobs) : []
    }
  }
}

/** Resolve once `check` holds, looking every 50 ms; throw, naming `what`, after `ms`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
