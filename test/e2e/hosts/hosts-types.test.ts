import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Host} from '../../../src/hosts/host.js'
import {text} from '../../../src/hosts/host-fields.js'
import type {HostType} from '../../../src/hosts/host-type.js'
import {hostTypeMap} from '../../../src/hosts/host-types.js'
import {jobAttempt} from '../../../src/hosts/job-attempt.js'
import {readHosts} from '../../../src/hosts/read-hosts.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import type {Diagnostic} from '../../../src/plan/types.js'
import {runPlan} from '../../../src/run/run-plan.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan} from '../../helpers/run-cli.js'

/**
 * "A new host type is one folder plus one map entry": a throwaway engine, written as its folder would hold it
 * (a descriptor with its own field and check, a Host over the shared job frame), registered in the map;
 * the front matter accepts it with its checks, and a run places an agent there and completes it. And a
 * `type:` the map does not hold is an error at the word itself, naming the types it does hold.
 */
beforeAll(isolateGitConfig)

const runs: string[] = []

/** `{type: echo, flavor: …}`: runs each attempt's command here, in its own process, through the frame. */
const echoType: HostType = {
  fields: {flavor: {read: text}},
  check: (spec) => [spec.own?.flavor === undefined && 'an echo host needs `flavor`'],
  create(spec, context): Host {
    return {
      spec,
      async run(job, command) {
        const frame = jobAttempt(job, command, {passed: spec.env, host: spec})
        if (frame.stop.aborted) return frame.finish({})
        runs.push(`${job.key} ${String(spec.own?.flavor)}`)
        const child = spawn(command.file, [...command.args], {cwd: context.root, env: {...process.env, ...frame.env, ECHO_FLAVOR: String(spec.own?.flavor)}, stdio: ['ignore', 'pipe', 'pipe']})
        child.stdout.on('data', (chunk: Buffer) => frame.out(chunk))
        child.stderr.on('data', (chunk: Buffer) => frame.err(chunk))
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
        return frame.finish({exitCode: code ?? 1})
      },
      // Its work stays with it: nothing to merge.
      collect: async () => ({ok: true}),
      cancel: async () => undefined,
      list: async () => [],
      preflight: async () => [],
      close: async () => undefined
    }
  }
}

/** `line:column` of a diagnostic's place. */
function at(diagnostic: Diagnostic): string {
  const place = diagnostic.place
  const point = place && 'start' in place ? place.start : place
  return `${point?.line}:${point?.column}`
}

afterEach(() => {
  delete hostTypeMap.echo
})

describe('a host type added through the map', () => {
  it('is read with its own fields and checks, and runs an agent', async () => {
    hostTypeMap.echo = echoType
    const bad = readHosts(parsePlan(['---', 'hosts:', '  box: {type: echo}', '---', '# P', '## Agents', '### A: a', '- **prompt**: true'].join('\n'), 'plan.md'))
    expect(bad.diagnostics.map((d) => `${at(d)} ${d.reason}`)).toEqual(['3:3 host `box`: an echo host needs `flavor`'])

    const repo = await tempRepo()
    const front = ['hosts:', '  box: {type: echo, flavor: mint, slots: 2}', 'host: box'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: 'echo "A ran with $ECHO_FLAVOR"'}, B: {deps: ['A'], script: 'echo B ran'}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const read = readHosts(parsePlan(await repo.read('plan.md'), plan))
    expect(read.diagnostics).toEqual([])
    expect(read.hosts.get('box')).toMatchObject({type: 'echo', slots: 2, own: {flavor: 'mint'}})

    const result = await runPlan({file: plan, cwd: repo.root, pollMs: 50})
    expect(result.exitCode).toBe(0)
    const {rows} = await readTable(plan)
    for (const id of ['A', 'B']) {
      expect(rows[id]!.status, rows[id]!.notes).toBe('completed')
      expect(rows[id]!.notes).toContain('host: box')
    }
    expect(runs.map((run) => run.replace(/-a1-[0-9a-f]+/, ''))).toEqual([expect.stringMatching(/-A mint$/), expect.stringMatching(/-B mint$/)])
    expect(await repo.read('.mdplan/logs/plan/A.1.log')).toContain('A ran with mint')
    await repo.cleanup()
  }, 120_000)
})

describe('a type the map does not hold', () => {
  it('is an error at the word itself, naming the types there are', () => {
    const plan = parsePlan(
      [
        '---',
        'runner: shell',
        'hosts:',
        '  box: {slots: 2, type: nosuch}',
        '  cluster:',
        '    slots: 4',
        "    type: 'slurmm'",
        '  fine: {type: ssh, address: dev@b1}',
        '---',
        '# P',
        '## Agents',
        '### A: a',
        '- **prompt**: true'
      ].join('\n'),
      'plan.md'
    )
    const read = readHosts(plan)
    expect(read.diagnostics.map((d) => `${at(d)} ${d.reason} [${d.rule}]`)).toEqual([
      '4:25 host `box`: unknown type "nosuch" (known: ssh, container, slurm, kubernetes) [invalid-host]',
      '7:12 host `cluster`: unknown type "slurmm" (known: ssh, container, slurm, kubernetes) [invalid-host]'
    ])
    expect([...read.hosts.keys()]).toEqual(['local', 'fine'])
  })

  it('`local` is not a type to declare', () => {
    const read = readHosts(parsePlan(['---', 'hosts:', '  here: {type: local}', '---', '# P', '## Agents', '### A: a', '- **prompt**: true'].join('\n'), 'plan.md'))
    expect(read.diagnostics.map((d) => `${at(d)} ${d.reason}`)).toEqual(['3:16 host `here`: unknown type "local" (known: ssh, container, slurm, kubernetes)'])
  })
})
