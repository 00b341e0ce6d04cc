import type {Io} from './io.js'
import {exitCodes} from '../exit-codes.js'
import {showStatus} from './show-status.js'

/**
 * `mdplan status <plan>` and `mdplan status <plan> --json` (either order), run
 * without building commander's program: people and scripts poll `status`, and
 * for a small plan loading commander (and the built-ins it pulls in) was a
 * good part of its time. Any other arguments (`--help`, an unknown option, a
 * second file, `--`) are commander's: undefined, and the caller runs it. What
 * this runs, and how it reports an error, is what commander's action and
 * src/cli/run-cli.ts do for the same arguments.
 */
export function quickStatus(argv: readonly string[], io: Io): Promise<number> | undefined {
  if (argv[0] !== 'status' || argv.length > 3) return undefined
  // One plan, and at most one other argument, which must then be `--json`.
  const files = argv.slice(1).filter((arg) => arg !== '--json')
  if (files.length !== 1 || files[0] === '' || files[0]!.startsWith('-')) return undefined
  return showStatus(files[0]!, argv.length === 3 ? {json: true} : {}, io).catch((error: unknown) => {
    io.stderr(`mdplan: ${error instanceof Error ? error.message : String(error)}\n`)
    return exitCodes.failed
  })
}
