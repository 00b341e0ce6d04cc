import type {Runner} from './runner.js'
import {claudeRunner} from './claude/claude.js'
import {codexRunner} from './codex/codex.js'
import {geminiRunner} from './gemini/gemini.js'
import {opencodeRunner} from './opencode/opencode.js'
import {shellRunner} from './shell/shell.js'

/** A runner from a command template (any runner value not in the map below): a factory, see src/runners/command/. */
export {commandRunner} from './command/command.js'

/** The runners known by name; any other runner value is a command template. */
export const builtinRunners: ReadonlyMap<string, Runner> = new Map([
  ['claude', claudeRunner],
  ['codex', codexRunner],
  ['gemini', geminiRunner],
  ['opencode', opencodeRunner],
  ['shell', shellRunner]
])
