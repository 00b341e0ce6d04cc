import {existsSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {driverCommand, wrapperName} from './driver-command.js'

/** What a `merge.mdplan.driver` value is, and whether it can run. */
export type DriverHealth =
  | {state: 'missing'}
  | {state: 'empty'}
  /** mdplan's wrapper, current, and its command can start: kept. */
  | {state: 'working'; command: string}
  /** mdplan's driver, but its command cannot start. */
  | {state: 'broken'; why: string}
  /** mdplan's driver without the fallback (an older init, or set by hand), or an older wrapper. */
  | {state: 'outdated'; command: string}
  /** Another tool's driver. */
  | {state: 'other'}

/**
 * Judge the driver value git would run: a value that cannot start makes git
 * report a conflict and leave our side alone (the other branch's rows lost
 * after `git add`), so `mdplan init --git` repairs it; a working one is kept.
 */
export function driverHealth(value: string | undefined, path = process.env.PATH ?? ''): DriverHealth {
  if (value === undefined) return {state: 'missing'}
  if (value.trim() === '') return {state: 'empty'}
  const wrapped = value.indexOf(` ${wrapperName} %O %A %B %P `)
  const plain = value.search(/\s+merge-driver\b/)
  if (wrapped === -1 && plain === -1) return {state: 'other'}
  const command = wrapped !== -1 ? value.slice(wrapped + ` ${wrapperName} %O %A %B %P `.length).trim() : value.slice(0, plain).trim()
  const words = shellWords(command)
  if (!words || words.length === 0) return {state: 'broken', why: `its command \`${command}\` cannot be read`}
  for (const word of words) {
    if (word.includes('/') ? !existsSync(word) : !onPath(word, path)) return {state: 'broken', why: `${word} ${word.includes('/') ? 'does not exist' : 'is not on PATH'}`}
  }
  return wrapped !== -1 && value === driverCommand(command) ? {state: 'working', command} : {state: 'outdated', command}
}

function onPath(name: string, path: string): boolean {
  return path.split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, name)))
}

/** The words of a command as `quote` in install-merge-driver writes them (double quotes, backslash escapes) or bare; undefined for anything else. */
function shellWords(command: string): string[] | undefined {
  const words: string[] = []
  const word = /\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"'`$\\;&|<>()]+))/y
  let at = 0
  while (at < command.length) {
    word.lastIndex = at
    const match = word.exec(command)
    if (!match) return command.slice(at).trim() === '' ? words : undefined
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!)
    at = word.lastIndex
  }
  return words
}
