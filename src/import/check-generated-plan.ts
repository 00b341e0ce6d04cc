import {parsePlan} from '../plan/parse-plan.js'
import {validatePlan} from '../plan/validate-plan.js'
import type {IssueAgent} from './issue-agents.js'

/**
 * Read a plan the importer is about to write back as mdplan will, and say
 * how it differs from what the importer meant: every agent it has (the
 * plan's earlier agents, then exactly the generated ones, in order), each
 * generated agent's name, fields and prompt exactly as generated, and no
 * validation error (but `knownErrors`, `rule reason`, which the plan had
 * before). An empty list means the file holds exactly those agents
 * and nothing a queue value could have added. Pure.
 */
export function checkGeneratedPlan(text: string, file: string, expected: {earlier: readonly string[]; agents: readonly IssueAgent[]; knownErrors?: ReadonlySet<string>}): string[] {
  const plan = parsePlan(text.replace(/^\uFEFF/, ''), file)
  const problems: string[] = []
  const ids = plan.agents.map((agent) => agent.id)
  const wanted = [...expected.earlier, ...expected.agents.map((agent) => agent.id)]
  if (ids.join('\n') !== wanted.join('\n')) {
    problems.push(`it reads back as ${ids.length} agent${ids.length === 1 ? '' : 's'} (${ids.join(', ')}), not the ${wanted.length} generated (${wanted.join(', ')})`)
    return problems
  }
  for (const want of expected.agents) {
    const agent = plan.agents.find((candidate) => candidate.id === want.id)!
    const keys = Object.keys(agent.fields)
    const wantedKeys = [...want.fields.map(([key]) => key), 'prompt']
    if (agent.name !== want.name) problems.push(`agent ${want.id} reads back named "${agent.name}", not "${want.name}"`)
    if (keys.join(',') !== wantedKeys.join(',')) problems.push(`agent ${want.id} reads back with the fields ${keys.join(', ')}, not ${wantedKeys.join(', ')}`)
    for (const [key, value] of want.fields) {
      if (agent.fields[key] !== undefined && agent.fields[key].value.trim() !== value.trim()) problems.push(`agent ${want.id}'s ${key} reads back as ${JSON.stringify(agent.fields[key].value)}`)
    }
    const prompt = want.prompt.join('\n').replace(/^\n+|\s+$/g, '')
    if (agent.prompt?.text !== prompt) problems.push(`agent ${want.id}'s prompt does not read back as generated`)
  }
  for (const diagnostic of [...plan.messages, ...validatePlan(plan)]) {
    if (diagnostic.severity !== 'error' || expected.knownErrors?.has(`${diagnostic.rule} ${diagnostic.reason}`)) continue
    const at = diagnostic.place && 'start' in diagnostic.place ? `:${diagnostic.place.start.line}:${diagnostic.place.start.column}` : ''
    problems.push(`${file}${at}: ${diagnostic.reason} [${diagnostic.rule}]`)
  }
  return problems
}
