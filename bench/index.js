#!/usr/bin/env node
// `npm run bench`: every performance figure of mdplan in one table, each with its target.
// Each file in bench/parts/ exports `run()` resolving to rows {figure, value, target, holds}.
// `holds` is true, false, or null (a figure reported without a target).
import {readdirSync} from 'node:fs'

const only = process.argv.slice(2)
const partsDir = new URL('./parts/', import.meta.url)
const parts = readdirSync(partsDir)
  .filter((name) => name.endsWith('.js'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort()

const rows = []
for (const name of parts) {
  const part = await import(new URL(name, partsDir).href)
  process.stderr.write(`bench: ${name}…\n`)
  for (const row of await part.run()) {
    rows.push({part: name.replace(/\.js$/, ''), ...row})
    // As soon as it is measured: a long run stopped midway still leaves its figures.
    process.stderr.write(`bench: ${row.figure}: ${row.value} (target ${row.target ?? '—'})\n`)
  }
}

const header = ['part', 'figure', 'value', 'target', 'holds']
const cells = rows.map((row) => [row.part, row.figure, String(row.value), row.target ?? '—', row.holds === null || row.holds === undefined ? '—' : row.holds ? 'yes' : 'NO'])
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)))
const line = (c) => '| ' + c.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |'
console.log(line(header))
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|')
for (const c of cells) console.log(line(c))
const failed = rows.filter((row) => row.holds === false)
console.log(`\n${rows.length} figures, ${failed.length} off target`)

// Issue 24's figures again, on their own: one coordinator for a thousand agents.
const issue = rows.filter((row) => row.issue === 24)
if (issue.length > 0) {
  const head = ['issue 24 figure', 'measured', 'target', '']
  const body = issue.map((row) => [row.figure, String(row.value), row.target ?? '—', row.holds ? 'met' : 'missed'])
  const w = head.map((h, i) => Math.max(h.length, ...body.map((c) => c[i].length)))
  const out = (c) => '| ' + c.map((v, i) => v.padEnd(w[i])).join(' | ') + ' |'
  console.log('\n' + out(head))
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|')
  for (const c of body) console.log(out(c))
  console.log(`\nissue 24: ${issue.filter((row) => row.holds).length} of ${issue.length} targets met`)
}
