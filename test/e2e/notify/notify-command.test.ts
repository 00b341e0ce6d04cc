import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {asking, notifyFiles, notifyProject, notifyTestFile} from './notify-helpers.js'

const cleanups = notifyTestFile()

describe('a command target (a real git repository)', () => {
  it('gets each event as one JSON line on stdin, its id in MDPLAN_NOTIFY_ID; no shell reads the plan’s words', async () => {
    const project = await notifyProject(
      (log) => ({Q: {script: asking(log)}, F: {script: logged(log, 'exit 3')}}),
      // `sh` is the command's own choice here (to append stdin to a file); mdplan runs the argv as it is.
      (scratch) => ['concurrency: 2', 'max_attempts: 1', 'notify:', `  - command: [sh, -c, 'cat >> "$1"; printf "%s\\n" "$MDPLAN_NOTIFY_ID" >> "$1.ids"', notify-command, '${scratch}/$(touch pwned)']`].join('\n')
    )
    cleanups.push(project.cleanup)
    const events = join(project.scratch, '$(touch pwned)')
    const run = await runCli(['run', project.plan], {cwd: project.repo.root})
    expect(run.exitCode, run.all).toBe(1)
    // The argument reached the command as a word: the file it names is the one written, nothing was run.
    const lines = (await readFile(events, 'utf8')).split('\n').filter(Boolean)
    const bodies = lines.map((line) => JSON.parse(line) as {id: string; kind: string; agent?: string})
    expect(bodies.map((b) => `${b.kind} ${b.agent ?? ''}`).sort()).toEqual(['failed F', 'question Q', 'run_finished '])
    expect(new Set(bodies.map((b) => b.id)).size).toBe(3)
    // Each command run saw its own event's id (two may run at once: compared as sets).
    expect((await readFile(`${events}.ids`, 'utf8')).split('\n').filter(Boolean).sort()).toEqual(bodies.map((b) => b.id).sort())
    expect(notifyFiles(project.repo).settled.map((s) => s.outcome)).toEqual(['delivered', 'delivered', 'delivered'])
    expect(existsSync(join(project.repo.root, 'pwned')) || existsSync(join(project.scratch, 'pwned'))).toBe(false)
  })
  it('a notify: that is wrong stops validate and run with file:line:column, the plan untouched', async () => {
    const project = await notifyProject((log) => ({A: {script: logged(log, 'true')}}), ['notify:', '  - command: notify-me --x', '  - {webhook_env: MDPLAN_TEST_HOOK, events: [finished]}'].join('\n'))
    cleanups.push(project.cleanup)
    const before = await readFile(project.plan, 'utf8')
    const validate = await runCli(['validate', 'plan.md'], {cwd: project.repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain('plan.md:4:14: front matter `notify`: `command` must be a list of arguments, run without a shell, such as `[notify-me, --x]` [invalid-notify]')
    expect(validate.stdout).toContain('plan.md:5:46: front matter `notify`: unknown event "finished" in `events`')
    const run = await runCli(['run', 'plan.md'], {cwd: project.repo.root})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('plan.md:4:14: front matter `notify`: `command` must be a list of arguments')
    expect(await readFile(project.plan, 'utf8')).toBe(before)
    expect((await readAgentLog(project.log)).lines).toEqual([])
  })
})
