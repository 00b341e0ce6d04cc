// The page of `mdplan serve` at 1,000 agents (issue 34): how long a fresh page takes to show the grid, and the
// DAG; how far the page's view lags behind the table while a run writes it; and whether the coordinator's
// makespan changes with the page open. Chromium from the system, driven by playwright-core (a dev dependency);
// skipped with one row where either is missing.
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag, toPlan} from '../sleep-dag.js'
import {gitInit} from '../git-init.js'
import {median} from '../median.js'
import {loadAverage} from '../load-average.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const chromiumPath = process.env.MDPLAN_CHROMIUM ?? '/usr/bin/chromium'
const agents = 1000
const pairs = Number(process.env.BENCH_PAIRS ?? 3)

function playwright() {
  try {
    return createRequire(import.meta.url)('playwright-core')
  } catch {
    return undefined
  }
}

export async function run() {
  const pw = playwright()
  if (!pw || !existsSync(chromiumPath)) return [{figure: 'the page at 1,000 agents', value: `skipped: ${pw ? `no Chromium at ${chromiumPath}` : 'playwright-core is not installed'}`, target: null, holds: null}]
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-bench-page-'))
  const nodes = sleepDag({agents, seed: 5, minMs: 20, maxMs: 200})
  const planText = toPlan(nodes, {concurrency: 16})
  writeFileSync(join(dir, 'plan.md'), planText)
  gitInit(dir)
  const server = await serve(dir)
  const browser = await pw.chromium.launch({executablePath: chromiumPath, args: ['--no-sandbox']})
  try {
    const loads = []
    const dags = []
    for (let i = 0; i < 3; i++) {
      const {grid, dag} = await freshLoad(browser, server.url)
      loads.push(grid)
      dags.push(dag)
    }
    const {lags} = await runWatched(browser, server.url, dir, planText)
    const {without, withPage} = await makespans(browser, server.url, dir, planText)
    const load = loadAverage()
    const lag = lags.length === 0 ? Infinity : Math.max(...lags)
    return [
      {figure: 'the page at 1,000 agents: a fresh page shows the grid, median of 3 (the DAG after)', value: `${(median(loads) / 1000).toFixed(2)} s (DAG ${(median(dags) / 1000).toFixed(2)} s); ${load}`, target: '≤ 2 s', holds: median(loads) <= 2000, issue: 34},
      {figure: "the page's view behind the table during a 1,000-agent run, worst of its completed counts", value: `${(lag / 1000).toFixed(2)} s over ${lags.length} samples; ${load}`, target: '≤ 1 s', holds: lag <= 1000, issue: 34},
      {figure: `makespan of that run with the page open ÷ without, median of ${pairs} pairs`, value: `${(withPage / without).toFixed(3)} (${(withPage / 1000).toFixed(2)} / ${(without / 1000).toFixed(2)} s); ${load}`, target: '≤ 1.05', holds: withPage / without <= 1.05, issue: 34}
    ]
  } finally {
    await browser.close()
    server.child.kill()
    rmSync(dir, {recursive: true, force: true})
  }
}

async function serve(dir) {
  const child = spawn(process.execPath, [bin, 'serve', 'plan.md', '--port', '0'], {cwd: dir, stdio: ['ignore', 'pipe', 'inherit']})
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const found = /(http:\/\/\S+)/.exec(String(chunk))
      if (found) resolve(found[1])
    })
    child.on('exit', (code) => reject(new Error(`mdplan serve exited ${code}`)))
  })
  return {child, url}
}

/** A new browser context (nothing cached): from navigation to 1,000 rows in the grid, then to 1,000 nodes in the DAG. */
async function freshLoad(browser, url) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const start = Date.now()
  await page.goto(url)
  await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length >= n, agents, {timeout: 60_000})
  const grid = Date.now() - start
  const dagStart = Date.now()
  await page.click('button[data-tab=dag]')
  await page.waitForFunction((n) => document.querySelectorAll('#dagbox g[data-agent]').length >= n, agents, {timeout: 60_000})
  const dag = Date.now() - dagStart
  await context.close()
  return {grid, dag}
}

/** How many rows the page shows completed. */
function completedOnPage(page) {
  return page.evaluate(() => document.querySelectorAll('tbody .st-completed').length)
}

/** How many rows the plan file says are completed. */
function completedInFile(dir) {
  return (readFileSync(join(dir, 'plan.md'), 'utf8').match(/\| completed \|/g) ?? []).length
}

function reset(dir, planText) {
  writeFileSync(join(dir, 'plan.md'), planText)
  rmSync(join(dir, '.mdplan', 'logs'), {recursive: true, force: true})
}

function timeRun(dir, planText) {
  reset(dir, planText)
  const start = Date.now()
  execFileSync(process.execPath, [bin, 'run', 'plan.md', '--quiet'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}})
  return Date.now() - start
}

/** Pairs of runs (BENCH_PAIRS, 3), alternating which goes first: without a page, and with one open as a person
 * has it (it follows the run; nothing reads it meanwhile: the lag's own sampling is not the page's cost). Medians. */
async function makespans(browser, url, dir, planText) {
  const without = []
  const withPage = []
  for (let pair = 0; pair < pairs; pair++) {
    const bare = () => without.push(timeRun(dir, planText))
    if (pair % 2 === 0) bare()
    const page = await browser.newPage()
    await page.goto(url)
    await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length >= n, agents, {timeout: 60_000})
    withPage.push(timeRun(dir, planText))
    await page.close()
    if (pair % 2 === 1) bare()
  }
  return {without: median(without), withPage: median(withPage)}
}

/**
 * The same run with the page open: every 50 ms the file's completed count and the page's, side by side. For each
 * count the file reached, how long until the page showed it.
 */
async function runWatched(browser, url, dir, planText) {
  reset(dir, planText)
  const page = await browser.newPage()
  await page.goto(url)
  await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length >= n, agents, {timeout: 60_000})
  const fileAt = new Map()
  const pageAt = new Map()
  const start = Date.now()
  const child = spawn(process.execPath, [bin, 'run', 'plan.md', '--quiet'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}, stdio: 'ignore'})
  let ended = false
  const exited = new Promise((resolve) => child.on('exit', () => resolve((ended = true))))
  while (!ended) {
    const now = Date.now()
    const inFile = completedInFile(dir)
    if (!fileAt.has(inFile)) fileAt.set(inFile, now)
    const onPage = await completedOnPage(page)
    const seen = Date.now()
    for (let n = 0; n <= onPage; n++) if (!pageAt.has(n)) pageAt.set(n, seen)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await exited
  const ms = Date.now() - start
  // The last counts may reach the page after the run ended: wait for them (a bound, not a target).
  const deadline = Date.now() + 10_000
  const final = completedInFile(dir)
  if (!fileAt.has(final)) fileAt.set(final, Date.now())
  while (!pageAt.has(final) && Date.now() < deadline) {
    const onPage = await completedOnPage(page)
    for (let n = 0; n <= onPage; n++) if (!pageAt.has(n)) pageAt.set(n, Date.now())
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await page.close()
  const lags = [...fileAt].filter(([n]) => n > 0).map(([n, at]) => (pageAt.get(n) ?? Infinity) - at)
  return {lags, ms}
}
