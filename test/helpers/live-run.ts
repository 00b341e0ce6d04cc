import {afterEach} from 'vitest'
import type {TempRepo} from './git-repo.js'
import type {startCli} from './run-cli.js'

export interface LiveRun {
  repo?: TempRepo
  live?: ReturnType<typeof startCli>
}

/**
 * The repository and the run a test starts, set by the test: after each test, whatever its end, the run
 * a failed assertion left waiting is ended as Ctrl-C ends it (it ends its agents), then the repository removed.
 */
export function liveRun(): LiveRun {
  const session: LiveRun = {}
  afterEach(async () => {
    session.live?.kill('SIGINT')
    await session.live
    session.live = undefined
    await session.repo?.cleanup()
    session.repo = undefined
  })
  return session
}
