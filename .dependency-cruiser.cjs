// The house rules of src/, checked by `npm run lint:deps` (part of `npm test` through test/e2e/project/house-rules.test.ts).
//
// 1. Layers. Each folder of src/ (and the few files at its root) has a floor; a file may import only from its own
//    folder or from folders on lower floors. The floors, bottom to top, are `layers` below: one folder per floor,
//    so no two folders can import each other and there is no cycle between folders.
// 2. No cycle between files, even through a type-only import.
// 3. Engines in folders. A runner's folder (src/runners/claude/, …) and a host engine's folder (src/hosts/ssh/, …)
//    are imported only from inside it and from its registry (src/runners/builtin-runners.ts, src/hosts/host-types.ts):
//    adding an engine is one folder and one map entry.

/** Bottom to top. A name is a folder of src/, or a file at its root without `.ts`. */
const layers = [
  ['events', 'exit-codes', 'package-root'],
  ['version'],
  ['util'],
  ['trace'],
  ['plan'],
  ['store'],
  ['schedule'],
  ['history'],
  ['layout'],
  ['process'],
  ['notify'],
  ['git'],
  ['protocol'],
  ['runners'],
  ['hosts'],
  ['nested'],
  ['executor'],
  ['report'],
  ['diff'],
  ['merge'],
  ['import'],
  ['init'],
  ['run'],
  ['serve'],
  ['cli']
]

const pathOf = (name) => `^src/${name}(/|\\.ts$)`
const above = (floor) => layers.slice(floor + 1).flat()

const layerRules = layers.flatMap((names, floor) =>
  above(floor).length === 0
    ? []
    : [
        {
          name: `layer-${names.join('-')}`,
          comment: `${names.join(', ')} may import only from the floors below it (see \`layers\` in .dependency-cruiser.cjs)`,
          severity: 'error',
          from: {path: names.map(pathOf)},
          to: {path: above(floor).map(pathOf)}
        }
      ]
)

const engines = {
  runners: {registry: 'src/runners/builtin-runners.ts', names: ['claude', 'codex', 'gemini', 'opencode', 'shell', 'command']},
  hosts: {registry: 'src/hosts/host-types.ts', names: ['local', 'ssh', 'container', 'slurm', 'kubernetes']}
}

const engineRules = Object.entries(engines).flatMap(([room, {registry, names}]) =>
  names.map((name) => ({
    name: `engine-${room}-${name}`,
    comment: `src/${room}/${name}/ is reached through its registry (${registry}) only`,
    severity: 'error',
    from: {pathNot: [`^src/${room}/${name}/`, `^${registry.replace(/\./g, '\\.')}$`]},
    to: {path: `^src/${room}/${name}/`}
  }))
)

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no cycle between files, type-only imports included',
      severity: 'error',
      from: {path: '^src/'},
      to: {circular: true}
    },
    ...layerRules,
    ...engineRules
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
  }
}
