// Where each real CLI keeps its sessions under HOME: a table's Agent ID is the
// CLI's own session ID when the CLI stored a session of that ID.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

/** Whether some file under `home` is named after `id` or (if small) holds it. */
export function sessionStored(home, id) {
  if (!id || id === '—') return false
  const stack = [home]
  while (stack.length > 0) {
    const dir = stack.pop()
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      continue
    }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        // Caches of packages and binaries hold no sessions.
        if (!['node_modules', '.cache', 'bin'].includes(entry.name)) stack.push(path)
        continue
      }
      if (entry.name.includes(id)) return true
      try {
        if (statSync(path).size < 4_000_000 && readFileSync(path, 'utf8').includes(id)) return true
      } catch {
        // unreadable: not a session file
      }
    }
  }
  return false
}
