import type {Runner} from './runner.js'
import {claudeRunner} from './claude.js'
import {codexRunner} from './codex.js'
import {geminiRunner} from './gemini.js'
import {opencodeRunner} from './opencode.js'
import {shellRunner} from './shell.js'

/** The runners known by name; any other runner value is a command template. */
export const builtinRunners: ReadonlyMap<string, Runner> = new Map([
  ['claude', claudeRunner],
  ['codex', codexRunner],
  ['gemini', geminiRunner],
  ['opencode', opencodeRunner],
  ['shell', shellRunner]
])
