import {Command} from 'commander'
import type {RegisterCommand} from '../../src/cli/command-result.js'
import type {Io} from '../../src/cli/io.js'

/**
 * Run one command module in-process, the way src/cli/main.ts wires it, with
 * output captured in order. `stderr` lines are marked so goldens show which
 * stream each line went to.
 */
export async function runCommand(register: RegisterCommand, argv: string[], cwd: string): Promise<{code: number; stdout: string; stderr: string; all: string}> {
  let stdout = ''
  let stderr = ''
  let all = ''
  const io: Io = {
    stdout: (text) => {
      stdout += text
      all += text
    },
    stderr: (text) => {
      stderr += text
      all += text.replace(/^(?=.)/gm, 'stderr: ')
    },
    isTTY: false,
    env: {},
    cwd
  }
  let code = 0
  const program = new Command('mdplan').exitOverride().configureOutput({writeOut: io.stdout, writeErr: io.stderr})
  register(program, io, (result) => {
    code = result
  })
  await program.parseAsync(argv, {from: 'user'})
  return {code, stdout, stderr, all}
}
