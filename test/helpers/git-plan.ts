import type {Agent, PathRef, Plan} from '../../src/plan/types.js'

const nowhere = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

function refs(paths: readonly string[] = []): PathRef[] {
  return paths.map((path) => ({path, position: nowhere}))
}

export interface AgentSpec {
  id: string
  name?: string
  dependsOn?: string[]
  creates?: string[]
  modifies?: string[]
  deletes?: string[]
}

/** Just enough of a parsed plan for the git helpers: agents and what they declare. */
export function fakePlan(agents: readonly AgentSpec[], title = 'Test plan'): Plan {
  return {
    file: 'plan.md',
    text: '',
    bom: false,
    eol: '\n',
    finalNewline: true,
    title,
    settings: {raw: {}},
    agents: agents.map(
      (spec): Agent => ({
        id: spec.id,
        name: spec.name ?? spec.id.toLowerCase(),
        position: nowhere,
        section: nowhere,
        dependsOn: (spec.dependsOn ?? []).map((id) => ({id, position: nowhere})),
        softDependsOn: [],
        creates: refs(spec.creates),
        modifies: refs(spec.modifies),
        deletes: refs(spec.deletes),
        fields: {}
      })
    ),
    sections: [],
    preVerification: [],
    integrationTests: [],
    messages: []
  }
}
