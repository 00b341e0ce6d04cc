// A generated plan in the full format, for benches (parse, store, executor, soak).
// Deterministic for a given seed. Every plan it makes is valid: a DAG, no file
// conflicts between agents that can run at the same time, a prompt per agent.
import {random} from './random.js'

/** Agent ids A…Z, then AA, AB, … (what real plans use past 26 agents). */
export function agentId(index) {
  let id = ''
  let n = index
  do {
    id = String.fromCharCode(65 + (n % 26)) + id
    n = Math.floor(n / 26) - 1
  } while (n >= 0)
  return id
}

/**
 * @param {object} options
 * @param {number} options.agents how many agents
 * @param {boolean} [options.withState=true] append an `## Execution State` table (all rows `pending`)
 * @param {boolean} [options.shell=false] `runner: shell` and prompts that are runnable POSIX scripts
 * @param {number} [options.sleepMs=0] with `shell`: how long each script sleeps (ms; 0 = no sleep)
 * @param {string} [options.outDir='.mdplan/bench-out'] with `shell`: where scripts write their files
 * @param {number} [options.seed=1]
 * @param {number} [options.maxDeps=3] hard dependencies per agent, at most (picked among recent agents)
 * @param {number} [options.window=12] dependencies are picked among this many preceding agents (DAG depth vs width)
 * @param {number} [options.failEvery=0] with `shell`: every Nth agent's script exits 1 (0 = none)
 * @param {number} [options.concurrency] front matter `concurrency`
 * @returns {string} the plan's Markdown
 */
export function generatePlan(options) {
  const {agents: count, withState = true, shell = false, sleepMs = 0, outDir = '.mdplan/bench-out', seed = 1, maxDeps = 3, window = 12, failEvery = 0, concurrency} = options
  const rand = random(seed)
  const ids = Array.from({length: count}, (_, i) => agentId(i))
  const out = []

  const front = []
  if (shell) front.push('runner: shell')
  if (concurrency !== undefined) front.push(`concurrency: ${concurrency}`)
  if (front.length > 0) out.push('---', ...front, '---', '')

  out.push(`# Parallel Plan: Generated plan of ${count} agents`, '')
  out.push('## Context', '', `A generated plan (seed ${seed}) for benchmarks: ${count} agents in a DAG.`, '')
  if (!shell) {
    out.push('## Shared Contract', '', '### Types', '', '```ts', 'export interface Item {', '  id: string', '  name: string', '}', '```', '')
  }
  out.push('## Agents', '')
  const modified = new Set()

  for (let i = 0; i < count; i++) {
    const id = ids[i]
    const deps = new Set()
    if (i > 0) {
      const want = Math.min(i, Math.floor(rand() * (maxDeps + 1)))
      for (let k = 0; k < want; k++) deps.add(ids[Math.max(0, i - 1 - Math.floor(rand() * Math.min(window, i)))])
    }
    const hard = [...deps]
    // A soft dependency now and then, on an agent that is not already a hard one.
    const softCandidate = i > 1 ? ids[Math.floor(rand() * i)] : undefined
    const soft = softCandidate && !deps.has(softCandidate) && rand() < 0.15 ? [softCandidate] : []
    const file = `${shell ? outDir : 'src/generated'}/${id.toLowerCase()}.${shell ? 'txt' : 'ts'}`
    // Modify a file one of its hard dependencies created: same chain, never a conflict.
    // Each file is modified at most once, so no two parallel agents share one.
    const target = hard.length > 0 && rand() < 0.3 ? `${shell ? outDir : 'src/generated'}/${hard[0].toLowerCase()}.${shell ? 'txt' : 'ts'}` : undefined
    const modifies = target && !modified.has(target) ? [target] : []
    for (const path of modifies) modified.add(path)
    const estimate = `${1 + Math.floor(rand() * 20)}m`

    out.push(`### ${id}: ${shell ? 'step' : 'module'} ${id.toLowerCase()}`)
    out.push(`- **depends_on**: [${hard.join(', ')}]`)
    if (soft.length > 0) out.push(`- **soft_depends_on**: [${soft.join(', ')}]`)
    out.push(`- **creates**: [\`${file}\`]`)
    out.push(`- **modifies**: [${modifies.map((path) => `\`${path}\``).join(', ')}]`)
    out.push(`- **estimated_duration**: ${shell ? `${Math.max(1, Math.ceil(sleepMs / 1000))}s` : estimate}`)
    out.push(`- **description**: Generated agent ${id}, depending on ${hard.length === 0 ? 'nothing' : hard.join(', ')}.`)
    out.push('- **prompt**: |')
    if (shell) {
      const fails = failEvery > 0 && (i + 1) % failEvery === 0
      out.push(
        '    set -e',
        `    mkdir -p ${outDir}`,
        ...(sleepMs > 0 ? [`    sleep ${(sleepMs / 1000).toFixed(3)}`] : []),
        `    echo "${id} done" > ${file}`,
        ...modifies.map((path) => `    echo "${id} was here" >> ${path}`),
        ...(fails ? ['    echo "RESULT: ERROR"', `    echo "generated failure of ${id}"`, '    exit 1'] : ['    echo "RESULT: SUCCESS"', `    echo "wrote ${file}"`]),
        ''
      )
    } else {
      out.push(
        `    Create \`${file}\` exporting \`make${id}()\`, built on the Item type of the Shared Contract.`,
        '',
        '    ## Steps',
        `    1. Read the modules of ${hard.length === 0 ? 'no other agent' : hard.join(', ')}.`,
        '    2. Write the function and its test.',
        '',
        '    ```ts',
        '    # not a heading: a line of the fence',
        `    export function make${id}(): Item {`,
        `      return {id: '${id}', name: 'generated'}`,
        '    }',
        '    ```',
        '',
        '    ## Boundaries',
        `    DO NOT modify files other than \`${file}\`${modifies.length > 0 ? ` and \`${modifies[0]}\`` : ''}.`,
        ''
      )
    }
  }

  if (shell) {
    out.push('## Integration Tests', '', '```sh', `test -d ${outDir}`, '```', '')
  }
  if (withState) {
    out.push('## Execution State', '', '_This section is managed by `/execute-parallel-plan`. Do not edit manually._', '')
    out.push('| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|')
    for (const id of ids) out.push(`| ${id} | pending | — | — | |`)
    out.push('', 'Started: —', 'Last updated: —', 'Build: not yet run', '')
  }
  return out.join('\n')
}
