// The REAL agent CLIs (npm run test:clis; not part of npm test).
//
//   node scripts/test-clis.js [claude] [codex] [gemini] [opencode] [--latest]
//
// Installs each client, pinned (scripts/clis/install-clis.js), into a cache
// folder outside the repository, then per client, side by side:
//   - the contract checks with no credentials (scripts/clis/contract.js);
//   - the real-work scenarios (scripts/clis/real-work.js): the CLI pointed at
//     the scripted model server (scripts/clis/model-server.js) does real work
//     under `mdplan run` in real git repositories.
// With --latest, the same again with the newest published versions (skipped
// where they are the pinned ones), and a table of which checks hold for each.
// One line per check. A registry that cannot be reached or an install that
// fails is one `SKIP` line, not a failure; exit 1 only when a check failed.
import {spawn} from 'node:child_process'
import {mkdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {cacheRoot, installClient, latestVersion, pinned} from './clis/install-clis.js'
import {scenarios} from './clis/real-work.js'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const wanted = args.filter((name) => name in pinned)
const clients = wanted.length > 0 ? wanted : Object.keys(pinned)
const withLatest = args.includes('--latest')
// Which scenarios each client can be driven through (see real-work.js and docs/runners.md).
// MDPLAN_CLIS_SCENARIOS=killAndResume,unauthorized runs only those (a quick check of one change).
const chosen = process.env.MDPLAN_CLIS_SCENARIOS?.split(',').filter(Boolean)
const all = Object.keys(scenarios).filter((name) => !chosen || chosen.includes(name))
const perClient = {
  claude: all,
  codex: all.filter((name) => name !== 'permissionDenied'),
  gemini: all.filter((name) => name !== 'permissionDenied'),
  opencode: all.filter((name) => name !== 'permissionDenied')
}

const started = Date.now()
const table = new Map()
const counts = {PASS: 0, FAIL: 0, SKIP: 0}
/** Clients whose newest version the registry did not tell: their latest column is SKIP, not the pinned result. */
const latestUnknown = new Set()

function record(column, client, name, passed, detail) {
  let key = `${client.padEnd(8)} ${name}`
  // Two checks of one name would share a row and hide one: number the second.
  for (let n = 2; table.get(key)?.[column] !== undefined; n++) key = `${client.padEnd(8)} ${name} (${n})`
  if (!table.has(key)) table.set(key, {client})
  const verdict = passed ? 'PASS' : 'FAIL'
  table.get(key)[column] = verdict
  counts[verdict]++
  console.log(`${verdict}  ${column.padEnd(6)} ${key}${detail ? `: ${String(detail).replace(/\s+/g, ' ').slice(0, 240)}` : ''}`)
}

/** A part that could not run (the registry unreachable, an install that failed): one line, not a failure. */
function skip(column, client, why) {
  counts.SKIP++
  console.log(`SKIP  ${column.padEnd(6)} ${client.padEnd(8)} ${why}`)
}

/** Runs the contract checks in a child process (they block on their own processes) and records its lines. */
function contract(column, client, bin) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, 'clis', 'contract.js'), client], {env: {...process.env, MDPLAN_CLIS_BINS: JSON.stringify({[client]: dirname(bin)})}, stdio: ['ignore', 'pipe', 'inherit']})
    let partial = ''
    let checks = 0
    child.stdout.on('data', (chunk) => {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop()
      for (const line of lines) {
        // contract.js ends a check's name with a tab (names hold colons).
        const match = /^(PASS|FAIL)\s+(\S+)\s+([^\t]+?)(?:\t(.*))?$/.exec(line)
        if (match) record(column, client, `contract: ${match[3]}`, match[1] === 'PASS', match[4])
        if (match) checks++
      }
    })
    child.on('close', (code) => {
      // A script that ends without one check (exit 1 before its first, as when it could not find dist/) failed.
      if ((code !== 0 && code !== 1) || checks === 0) record(column, client, 'contract: the script ran its checks', false, `exit ${code}, ${checks} checks`)
      resolve()
    })
  })
}

async function runClient(column, client, version) {
  const installed = installClient(client, version)
  if (installed.skipped) return skip(column, client, installed.skipped)
  console.log(`----  ${column.padEnd(6)} ${client.padEnd(8)} ${pinned[client].pkg}@${installed.version} (${installed.bin})`)
  const sharedCache = join(cacheRoot, 'xdg-cache')
  mkdirSync(sharedCache, {recursive: true})
  const context = {bin: installed.bin, sharedCache}
  const check = (name, passed, detail) => record(column, client, name, passed, detail)
  const guarded = (name) =>
    scenarios[name](client, context, check).catch((error) => check(`${name}: the scenario ran`, false, error?.stack?.split('\n').slice(0, 2).join(' ') ?? String(error)))
  await Promise.all([contract(column, client, installed.bin), pooled(perClient[client], guarded)])
}

// How many scenarios of one client run side by side (MDPLAN_CLIS_PARALLEL): each is a real CLI in a real
// repository, and a 2-core machine with all of them at once stretched opencode's starts to minutes.
const parallel = Math.max(1, Number(process.env.MDPLAN_CLIS_PARALLEL) || 4)

/** Runs `run` on each name, at most `parallel` at once. */
async function pooled(names, run) {
  const queue = [...names]
  const worker = async () => {
    while (queue.length > 0) await run(queue.shift())
  }
  await Promise.all(Array.from({length: Math.min(parallel, queue.length)}, worker))
}

const columns = [['pinned', Object.fromEntries(clients.map((client) => [client, pinned[client].version]))]]
if (withLatest) {
  const latest = {}
  for (const client of clients) {
    const version = latestVersion(pinned[client].pkg)
    if (version === undefined) {
      latestUnknown.add(client)
      skip('latest', client, `the npm registry did not answer for ${pinned[client].pkg}`)
    }
    else if (version === pinned[client].version) console.log(`----  latest ${client.padEnd(8)} ${pinned[client].pkg}@${version} is the pinned version: its column is the pinned one`)
    else latest[client] = version
  }
  columns.push(['latest', latest])
}
for (const [column, versions] of columns) {
  for (const client of Object.keys(versions)) await runClient(column, client, versions[client])
}

// The table: one row per check, one column per version set (a latest equal to pinned shows the pinned result).
const width = Math.max(5, ...[...table.keys()].map((key) => key.length)) + 1
console.log(`\n${'check'.padEnd(width)} ${columns.map(([column]) => column.padEnd(8)).join(' ')}`)
for (const [key, cells] of table) {
  console.log(`${key.padEnd(width)} ${columns.map(([column]) => (cells[column] ?? (column !== 'latest' ? '—' : latestUnknown.has(cells.client) ? 'SKIP' : `${cells.pinned}=`)).padEnd(8)).join(' ')}`)
}
const versions = columns.map(([column, found]) => `${column}: ${Object.entries(found).map(([client, version]) => `${pinned[client].pkg}@${version}`).join(', ') || 'as pinned'}`)
const seconds = Math.round((Date.now() - started) / 1000)
console.log(`\n${counts.FAIL === 0 ? 'PASS' : 'FAIL'}: ${counts.PASS} PASS, ${counts.FAIL} FAIL, ${counts.SKIP} SKIP in ${seconds}s (${versions.join('; ')})`)
process.exit(counts.FAIL === 0 ? 0 : 1)
