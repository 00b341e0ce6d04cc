import type {ReporterMode} from './create-reporter.js'

/**
 * Which view a run prints: the live view only on a terminal that can redraw
 * in place. `TERM=dumb` (Emacs' shell, some CI log viewers) moves no cursor,
 * so a redrawn frame would pile up: it gets the plain event lines, as a pipe does.
 */
export function reporterMode(input: {json?: boolean; quiet?: boolean; isTTY: boolean; env: NodeJS.ProcessEnv}): ReporterMode {
  if (input.json) return 'json'
  if (input.quiet) return 'quiet'
  if (!input.isTTY || input.env.TERM === 'dumb') return 'plain'
  return 'tty'
}
