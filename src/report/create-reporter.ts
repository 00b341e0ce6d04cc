import {createLogUpdate} from 'log-update'
import type {RunEvent} from '../events.js'
import type {Plan} from '../plan/types.js'
import {formatEventLine} from './format-event-line.js'
import {formatScorecard} from './format-scorecard.js'
import {serializeEvent} from './json-events.js'
import {applyProgressEvent, createProgressState} from './progress-state.js'
import {renderLive} from './render-live.js'

export type ReporterMode = 'tty' | 'plain' | 'json' | 'quiet'

export interface ReporterOptions {
  /** `tty`: live view redrawn in place; `plain`: a timestamped line per event; `json`: NDJSON; `quiet`: only the scorecard. */
  mode: ReporterMode
  write: (text: string) => void
  /** Off for NO_COLOR, pipes and `json` (see `colorEnabled`). */
  color?: boolean
  /** Clock, injectable for tests. */
  now?: () => number
  /** The plan, so the live view knows every agent's name and dependencies before they launch. */
  plan?: Plan
  /**
   * Terminal size for the live view (default 80×24, also when the terminal reports 0); a function is asked
   * before each redraw, so a resized terminal is followed.
   */
  columns?: number | (() => number | undefined)
  rows?: number | (() => number | undefined)
  /** Least time between two redraws of the live view. */
  minRedrawMs?: number
  /** How often the live view refreshes elapsed times with no event. */
  tickMs?: number
}

export interface Reporter {
  event(event: RunEvent): void
  /** Stop redrawing; the last frame or the scorecard stays on screen. Safe to call twice. */
  close(): void
}

// Events that leave a line above the live view, so the screen keeps a short history.
const lasting = new Set<RunEvent['type']>(['completed', 'failed', 'question', 'awaiting-review', 'approved', 'warning', 'budget', 'verification-finished'])

/** The one thing the executor talks to: feeds every `RunEvent` to the view the person asked for. */
export function createReporter(options: ReporterOptions): Reporter {
  const color = options.mode === 'json' ? false : (options.color ?? false)
  const finish = (event: RunEvent): void => {
    if (event.type === 'run-finished') options.write(formatScorecard(event.scorecard, {color}))
  }
  switch (options.mode) {
    case 'json':
      return {event: (event) => options.write(serializeEvent(event)), close: () => {}}
    case 'quiet':
      return {event: finish, close: () => {}}
    case 'plain':
      return {
        event(event) {
          // A line per state write would drown the events people read; `--json` keeps every write.
          if (event.type !== 'state-written') options.write(formatEventLine(event, {color}) + '\n')
          finish(event)
        },
        close: () => {}
      }
    case 'tty':
      return createLiveReporter(options, color)
  }
}

function createLiveReporter(options: ReporterOptions, color: boolean): Reporter {
  const now = options.now ?? Date.now
  const minRedrawMs = options.minRedrawMs ?? 250
  // A terminal that reports 0 columns or rows (`script`, `ssh -tt` without a size, `expect`) has not said
  // how big it is: draw for the usual 80×24 rather than cut every line to nothing.
  const size = (value: ReporterOptions['columns'], fallback: number): number => {
    const reported = typeof value === 'function' ? value() : value
    return reported !== undefined && Number.isFinite(reported) && reported > 0 ? reported : fallback
  }
  // log-update only needs `write` and the terminal size from its stream.
  const stream = {
    write: (text: string) => (options.write(text), true),
    get columns() {
      return size(options.columns, 80)
    },
    get rows() {
      return size(options.rows, 24)
    }
  } as unknown as NodeJS.WriteStream
  const frame = createLogUpdate(stream, {showCursor: true})
  const state = createProgressState(options.plan)
  let lastDraw = -Infinity
  let pending: NodeJS.Timeout | undefined
  let closed = false

  const draw = (): void => {
    pending = undefined
    if (closed) return
    lastDraw = now()
    frame(renderLive(state, lastDraw, {color, columns: stream.columns}))
  }
  // Redraw at most every `minRedrawMs`: a burst of events costs one frame.
  const schedule = (): void => {
    if (closed || pending) return
    const wait = lastDraw + minRedrawMs - now()
    if (wait <= 0) draw()
    else pending = setTimeout(draw, wait)
  }
  const ticker = setInterval(schedule, options.tickMs ?? 1000)
  ticker.unref()

  const stop = (): void => {
    if (closed) return
    closed = true
    clearInterval(ticker)
    if (pending) clearTimeout(pending)
    pending = undefined
  }

  return {
    event(event) {
      if (closed) return
      applyProgressEvent(state, event, now())
      if (event.type === 'run-finished') {
        // The scorecard replaces the live view: it is what stays on screen.
        frame.clear()
        frame.done()
        stop()
        options.write(formatEventLine(event, {color}) + '\n')
        options.write(formatScorecard(event.scorecard, {color}))
        return
      }
      if (lasting.has(event.type)) {
        frame.clear()
        options.write(formatEventLine(event, {color}) + '\n')
      }
      schedule()
    },
    close() {
      if (closed) return
      draw()
      frame.done()
      stop()
    }
  }
}
