import {execa} from 'execa'
import {root} from './run-cli.js'

export interface Packed {
  /** The .tgz's size in bytes. */
  size: number
  unpackedSize: number
  files: Array<{path: string; size: number}>
}

/** What `npm pack` would put in the tarball, from the dist/ the tests built (no build of its own: --ignore-scripts). */
export async function packed(): Promise<Packed> {
  const result = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {cwd: root})
  const [pack] = JSON.parse(result.stdout) as Packed[]
  return pack!
}
