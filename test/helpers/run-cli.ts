import {cp, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa, type ResultPromise} from 'execa'
import {parsePlan} from '../../src/plan/parse-plan.js'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const bin = join(root, 'bin', 'mdplan.js')

/** A fresh temp folder holding `plan.md` (from a fixture folder under fixtures/ or from text). */
export async function setupPlan(source: {fixture: string} | {text: string}): Promise<{dir: string; plan: string}> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-run-'))
  const plan = join(dir, 'plan.md')
  if ('fixture' in source) await cp(join(root, 'fixtures', source.fixture), dir, {recursive: true})
  else await writeFile(plan, source.text)
  return {dir, plan}
}

/** Start `mdplan <args>` in `cwd` (not awaited: tests may signal it). */
export function startCli(args: string[], options: {cwd: string; env?: Record<string, string>}): ResultPromise<{reject: false; all: true}> {
  return execa(process.execPath, [bin, ...args], {cwd: options.cwd, env: {NO_COLOR: '1', ...options.env}, reject: false, all: true})
}

export async function runCli(args: string[], options: {cwd: string; env?: Record<string, string>}) {
  return await startCli(args, options)
}

export interface Row {
  status: string
  agentId: string
  duration: string
  notes: string
}

/** The state table as the file says now. */
export async function readTable(planFile: string): Promise<{rows: Record<string, Row>; meta: Record<string, string>; text: string}> {
  const text = await readFile(planFile, 'utf8')
  const plan = parsePlan(text, planFile)
  const table = plan.state?.table
  const rows: Record<string, Row> = {}
  for (const row of table?.rows ?? []) {
    const cell = (index: number | undefined) => (index === undefined || index < 0 ? '' : (row.cells[index]?.value ?? ''))
    rows[row.agent] = {
      status: row.status ?? row.statusRaw,
      agentId: cell(table!.index.agentId),
      duration: cell(table!.index.duration),
      notes: cell(table!.index.notes)
    }
  }
  const meta: Record<string, string> = {}
  for (const line of plan.state?.meta ?? []) meta[line.key] = line.value
  return {rows, meta, text}
}

/** Resolve once `predicate` holds for the plan's table (polling), or throw after `ms`. */
export async function waitForTable(planFile: string, predicate: (rows: Record<string, Row>) => boolean, ms = 15_000): Promise<Record<string, Row>> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      const {rows} = await readTable(planFile)
      if (predicate(rows)) return rows
    } catch {
      // A read between writes never sees a partial file (rename is atomic), but the file may not exist yet.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the table of ${planFile}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A plan with shell agents: `agents` maps `ID` to `{deps, soft, script, creates}`. */
export function shellPlan(
  agents: Record<string, {deps?: string[]; soft?: string[]; script: string; creates?: string[]; estimate?: string; host?: string; review?: boolean}>,
  extra: {frontMatter?: string; pre?: string; integration?: string; table?: boolean} = {}
): string {
  const lines = ['---', 'runner: shell', ...(extra.frontMatter ? [extra.frontMatter] : []), '---', '', '# Parallel Plan: test', '', '## Agents', '']
  for (const [id, agent] of Object.entries(agents)) {
    lines.push(`### ${id}: ${id.toLowerCase()}-step`)
    lines.push(`- **depends_on**: [${(agent.deps ?? []).join(', ')}]`)
    if (agent.soft) lines.push(`- **soft_depends_on**: [${agent.soft.join(', ')}]`)
    lines.push(`- **creates**: [${(agent.creates ?? []).map((c) => `\`${c}\``).join(', ')}]`)
    if (agent.estimate) lines.push(`- **estimated_duration**: ${agent.estimate}`)
    if (agent.host) lines.push(`- **host**: ${agent.host}`)
    if (agent.review !== undefined) lines.push(`- **review**: ${agent.review}`)
    lines.push('- **prompt**: |')
    for (const line of agent.script.split('\n')) lines.push(line === '' ? '' : `    ${line}`)
    lines.push('')
  }
  if (extra.pre) lines.push('## Pre-Execution Verification', '', '```sh', extra.pre, '```', '')
  if (extra.integration) lines.push('## Integration Tests', '', '```sh', extra.integration, '```', '')
  if (extra.table !== false) {
    lines.push('## Execution State', '', '| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|')
    for (const id of Object.keys(agents)) lines.push(`| ${id} | pending | — | — | |`)
    lines.push('', 'Started: —', 'Last updated: —', 'Build: not yet run', '')
  }
  return lines.join('\n')
}
