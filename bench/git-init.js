// Make a bench or soak folder a git repository, as a user's project is: one commit of what `add` names.
import {execFileSync} from 'node:child_process'

const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost']

/** `git init` in `dir`, then one commit of `add` (paths; default everything there). */
export function gitInit(dir, add = ['-A']) {
  const git = (...args) => execFileSync('git', [...identity, ...args], {cwd: dir, stdio: 'ignore'})
  git('init', '-q', '-b', 'main')
  git('add', ...add)
  git('commit', '-q', '-m', 'bench')
}
