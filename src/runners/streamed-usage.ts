import {usageLine} from '../protocol/usage-line.js'
import type {RunRequest} from './runner.js'

/**
 * A script's output line by line, for its `USAGE:` lines as they come: each says what the attempt has spent
 * so far (the last one is its spend), so a budget can stop it there. Every line also goes to `onOutput`.
 */
export function streamedUsage(request: Pick<RunRequest, 'onOutput' | 'onSpend'>, onLine?: (line: string) => void): (line: string) => void {
  return (line) => {
    onLine?.(line)
    request.onOutput?.(line)
    if (!request.onSpend || !/^[ \t]*USAGE:/.test(line)) return
    const spent = usageLine(line)
    if (spent) request.onSpend(spent)
  }
}
