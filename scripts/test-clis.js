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
// Which scenarios each client can be driven through (see real-work.js and the README's runner section).
const perClient = {
  claude: Object.keys(scenarios),
  codex: Object.keys(scenarios).filter((name) => name !== 'permissionDenied'),
  gemini: Object.keys(scenarios).filter((name) => name !== 'permissionDenied'),
  opencode: Object.keys(scenarios).filter((name) => name !== 'permissionDenied')
}

const started = Date.now()
const table = new Map()
let failed = 0

function record(column, client, name, passed, detail) {
  const key = `${client.padEnd(8)} ${name}`
  if (!table.has(key)) table.set(key, {})
  table.get(key)[column] = passed ? 'PASS' : 'FAIL'
  if (!passed) failed++
  console.log(`${passed ? 'PASS' : 'FAIL'}  ${column.padEnd(6)} ${key}${detail ? `: ${String(detail).replace(/\s+/g, ' ').slice(0, 240)}` : ''}`)
}

/** Runs the contract checks in a child process (they block on their own processes) and records its lines. */
function contract(column, client, bin) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, 'clis', 'contract.js'), client], {env: {...process.env, MDPLAN_CLIS_BINS: JSON.stringify({[client]: dirname(bin)})}, stdio: ['ignore', 'pipe', 'inherit']})
    let partial = ''
    child.stdout.on('data', (chunk) => {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop()
      for (const line of lines) {
        const match = /^(PASS|FAIL)\s+(\S+)\s+([^:]+?)(?::\s(.*))?$/.exec(line)
        if (match) record(column, client, `contract: ${match[3]}`, match[1] === 'PASS', match[4])
      }
    })
    child.on('close', (code) => {
      if (code !== 0 && code !== 1) record(column, client, 'contract: the script ran', false, `exit ${code}`)
      resolve()
    })
  })
}

async function runClient(column, client, version) {
  const installed = installClient(client, version)
  if (installed.skipped) {
    console.log(`SKIP  ${column.padEnd(6)} ${client.padEnd(8)} ${installed.skipped}`)
    return
  }
  console.log(`----  ${column.padEnd(6)} ${client.padEnd(8)} ${pinned[client].pkg}@${installed.version} (${installed.bin})`)
  const sharedCache = join(cacheRoot, 'xdg-cache')
  mkdirSync(sharedCache, {recursive: true})
  const context = {bin: installed.bin, sharedCache}
  const check = (name, passed, detail) => record(column, client, name, passed, detail)
  const guarded = (name) =>
    scenarios[name](client, context, check).catch((error) => check(`${name}: the scenario ran`, false, error?.stack?.split('\n').slice(0, 2).join(' ') ?? String(error)))
  await Promise.all([contract(column, client, installed.bin), ...perClient[client].map(guarded)])
}

const columns = [['pinned', Object.fromEntries(clients.map((client) => [client, pinned[client].version]))]]
if (withLatest) {
  const latest = {}
  for (const client of clients) {
    const version = latestVersion(pinned[client].pkg)
    if (version === undefined) console.log(`SKIP  latest ${client.padEnd(8)} the npm registry did not answer for ${pinned[client].pkg}`)
    else if (version === pinned[client].version) console.log(`----  latest ${client.padEnd(8)} ${pinned[client].pkg}@${version} is the pinned version: its column is the pinned one`)
    else latest[client] = version
  }
  columns.push(['latest', latest])
}
for (const [column, versions] of columns) {
  for (const client of Object.keys(versions)) await runClient(column, client, versions[client])
}

// The table: one row per check, one column per version set (a latest equal to pinned shows the pinned result).
console.log(`\n${'check'.padEnd(78)} ${columns.map(([column, versions]) => column.padEnd(8)).join(' ')}`)
for (const [key, cells] of table) {
  console.log(`${key.padEnd(78)} ${columns.map(([column]) => (cells[column] ?? (column === 'latest' ? cells.pinned + '=' : '—')).padEnd(8)).join(' ')}`)
}
const versions = columns.map(([column, found]) => `${column}: ${Object.entries(found).map(([client, version]) => `${pinned[client].pkg}@${version}`).join(', ') || 'as pinned'}`)
const total = [...table.values()].reduce((sum, cells) => sum + Object.keys(cells).length, 0)
console.log(`\n${total - failed}/${total} checks passed in ${Math.round((Date.now() - started) / 1000)}s (${versions.join('; ')})`)
process.exit(failed === 0 ? 0 : 1)
