import {readFile} from 'node:fs/promises'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readHosts} from '../../../src/hosts/read-hosts.js'
import {runCli, setupPlan} from '../../helpers/run-cli.js'

const badPlan = `---
runner: shell
hosts:
  hpc: {type: slurm, partition: debug, sbatch: [qos]}
  rel: {type: slurm, dir: jobs}
  kube: {type: kubernetes, namespace: Agents_1, secret: 'Keys!'}
host: hpc
---

# Parallel Plan: t

## Agents

### A: a
- **depends_on**: []
- **prompt**: |
    true
`

describe('declaring slurm and kubernetes hosts', () => {
  it('names every bad declaration by line and column, exits 2, leaves the plan untouched, submits nothing', async () => {
    const {dir, plan} = await setupPlan({text: badPlan})
    const result = await runCli(['run', plan], {cwd: dir, env: {PATH: '/nonexistent'}})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('plan.md:4:3: host `hpc`: a slurm host needs `dir`: a folder this machine and the compute nodes share')
    expect(result.stderr).toContain('plan.md:4:3: host `hpc`: `sbatch` must list `sbatch` options')
    expect(result.stderr).toContain('plan.md:5:3: host `rel`: `dir` must be an absolute path')
    expect(result.stderr).toContain('plan.md:6:3: host `kube`: a kubernetes host needs `image`')
    expect(result.stderr).toContain('plan.md:6:3: host `kube`: `namespace` must be a Kubernetes name')
    expect(result.stderr).toContain('plan.md:6:3: host `kube`: `secret` must name a Kubernetes Secret')
    expect(await readFile(plan, 'utf8')).toBe(badPlan)
  })

  it('reads the engines\' options', () => {
    const plan = parsePlan(
      [
        '---',
        'hosts:',
        "  hpc: {type: slurm, dir: /shared/jobs, partition: gpu, time: '1:00:00', cpus: 4, memory: 8G, sbatch: [--qos=long, --account=lab], slots: 40, env: [ANTHROPIC_API_KEY]}",
        '  kube: {type: kubernetes, image: ghcr.io/acme/agent:1, namespace: agents, context: prod, service-account: runner, secret: keys, cpus: 2, memory: 4Gi}',
        '---',
        '# Parallel Plan: t',
        '## Agents',
        '### A: a',
        '- **prompt**: true'
      ].join('\n'),
      'plan.md'
    )
    const read = readHosts(plan)
    expect(read.diagnostics).toEqual([])
    expect(read.hosts.get('hpc')).toMatchObject({type: 'slurm', dir: '/shared/jobs', partition: 'gpu', time: '1:00:00', cpus: 4, memory: '8G', sbatch: ['--qos=long', '--account=lab'], slots: 40, env: ['ANTHROPIC_API_KEY']})
    expect(read.hosts.get('kube')).toMatchObject({type: 'kubernetes', image: 'ghcr.io/acme/agent:1', namespace: 'agents', context: 'prod', serviceAccount: 'runner', secret: 'keys', cpus: 2, memory: '4Gi'})
  })
})
