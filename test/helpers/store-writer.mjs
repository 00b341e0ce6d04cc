// A writer process for the crash test: writes the plan's table in a loop until killed.
// argv: <transpiled root> <plan file> <tag>. Every write sets every row's Notes to
// `<tag>-<n>`, so a file holding a mix of two writes would show two tags.
const [root, file, tag] = process.argv.slice(2)
const {PlanStore} = await import(`${root}/src/store/plan-store.js`)
const store = await PlanStore.open(file)
let state = store.state
for (let n = 0; ; n++) {
  for (const row of state.rows.values()) {
    row.notes = `${tag}-${n}`
    row.status = n % 2 === 0 ? 'in_progress' : 'completed'
    row.duration = `${n}s`
  }
  state = (await store.write(state, {running: new Set()})).state
  if (n === 0) process.stdout.write('ready\n')
}
