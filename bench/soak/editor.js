#!/usr/bin/env node
// A person editing the plan while it runs, saving the way editors do: read the
// file, change it, write a temp file and rename it over the plan. Each save is
// one of: a line added to `## Context`, a finished row's Notes rewritten, a
// completed row set back to `pending`. Every save is recorded as one JSON line.
//
// node editor.js <plan> <runs.log> <edits> <mean gap ms> <seed> <record file> [rename|in-place|mixed|stale] [careless]
// stale: as rename, and every fifth save is a stale buffer: the file as read ten saves earlier, only its title
// changed, saved without looking (an editor that kept the buffer open): mdplan must take the title and undo nothing.
// in-place: save the way some editors and scripts do, truncating the file and writing into it.
// careless: never check whether the file changed since it was read (a save can undo mdplan's last write).
import {appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync} from 'node:fs'
import {random, sleep} from './util.js'

const [plan, runsLog, editsArg, gapArg, seedArg, record, mode = 'rename', care = 'careful'] = process.argv.slice(2)
const careless = care === 'careless'
const edits = Number(editsArg)
const gap = Number(gapArg)
const rand = random(Number(seedArg))
/** Each agent gets at most one row edit, so every check at the end is unambiguous. */
const touched = new Set(['GATE'])
let raced = 0

// The plan's write mutex (src/store/write-mutex.ts): a directory, made with mkdir, held for a check and a rename.
const mutex = `${plan}.write-lock`
function lock() {
  for (;;) {
    try {
      mkdirSync(mutex)
      return
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1)
    }
  }
}
const unlock = () => rmSync(mutex, {recursive: true, force: true})

const size = (file) => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/** The cells of a table line, split on unescaped pipes (first and last are the outside of the row). */
const cellsOf = (line) => line.split(/(?<!\\)\|/)

function rowsIn(text) {
  const rows = []
  const start = text.indexOf('\n## Execution State')
  const lines = text.slice(start).split('\n')
  let offset = start
  for (const line of lines) {
    const cells = cellsOf(line)
    if (line.startsWith('| ') && cells.length === 7 && !/^\s*(Agent|-+)\s*$/.test(cells[1])) {
      rows.push({id: cells[1].trim(), status: cells[2].trim(), line, offset})
    }
    offset += line.length + 1
  }
  return rows
}

function replaceLine(text, row, cells) {
  return text.slice(0, row.offset) + cells.join('|') + text.slice(row.offset + row.line.length)
}

/** One edit, computed from the text as read. */
function plan1(text, n) {
  const roll = rand()
  const done = rowsIn(text).filter((r) => r.status === 'completed' && !touched.has(r.id))
  const pick = () => done[Math.floor(rand() * done.length)]
  if (roll < 0.35 && done.length > 0) {
    const row = pick()
    const note = `hand note ${n}, kept as written`
    const cells = cellsOf(row.line)
    cells[5] = ` ${note} `
    return {edit: {kind: 'note', agent: row.id, note}, text: replaceLine(text, row, cells)}
  }
  if (roll < 0.6 && done.length > 0) {
    const row = pick()
    const cells = cellsOf(row.line)
    cells[2] = ' pending '
    return {edit: {kind: 'requeue', agent: row.id}, text: replaceLine(text, row, cells)}
  }
  const line = `- editor line ${n}: context written by hand while the plan ran.`
  const at = text.indexOf('\n## Agents')
  return {edit: {kind: 'context', line, finished: done.length}, text: text.slice(0, at) + line + '\n' + text.slice(at)}
}

/** Buffers read at earlier saves, oldest first: what a stale save writes back. */
const buffers = []
/** What the editor's last save wrote. */
let lastSaved

for (let n = 1; n <= edits; n++) {
  await sleep(rand() * 2 * gap)
  // A stale buffer is a version mdplan wrote (the spec's case); the editor's own unmerged save is not one.
  const current = readFileSync(plan, 'utf8')
  if (current !== lastSaved) buffers.push(current)
  if (buffers.length > 10) buffers.shift()
  if (mode === 'stale' && n % 5 === 0 && buffers.length > 0) {
    // A stale save over the editor's own last save, before mdplan read it, would lose that save by the
    // editor's own hand: wait until mdplan has written since (it merges a save when it writes next).
    for (let waited = 0; waited < 2000 && readFileSync(plan, 'utf8') === lastSaved; waited += 10) await sleep(10)
    if (readFileSync(plan, 'utf8') === lastSaved) {
      // mdplan had nothing to write meanwhile (no event): a stale save now would only undo the editor's own save.
      appendFileSync(record, JSON.stringify({n, kind: 'stale', skipped: true, time: Date.now()}) + '\n')
      continue
    }
    const title = `# Parallel Plan: stale save ${n}`
    const temp = `${plan}.editor-${process.pid}.tmp`
    writeFileSync(temp, buffers[0].replace(/^# .*$/m, title))
    renameSync(temp, plan)
    appendFileSync(record, JSON.stringify({n, kind: 'stale', title, time: Date.now()}) + '\n')
    continue
  }
  for (;;) {
    const before = statSync(plan)
    const text = readFileSync(plan, 'utf8')
    const {edit, text: next} = plan1(text, n)
    const runsBefore = size(runsLog)
    if (mode === 'in-place' || (mode === 'mixed' && rand() < 0.5)) {
      // No rename: whoever has the file open sees it emptied, then refilled.
      const now = statSync(plan)
      if (!careless && (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs || now.size !== before.size)) {
        raced++
        continue
      }
      writeFileSync(plan, next)
      lastSaved = next
      if (edit.agent) touched.add(edit.agent)
      appendFileSync(record, JSON.stringify({n, ...edit, runsBefore, time: Date.now(), inPlace: true}) + '\n')
      break
    }
    const temp = `${plan}.editor-${process.pid}.tmp`
    const fd = openSync(temp, 'w')
    writeSync(fd, next)
    fsyncSync(fd)
    closeSync(fd)
    // A careful editor: if the file changed since it was read, read it again (as editors
    // ask "the file changed on disk"). The check and the rename happen under the plan's
    // write mutex, as mdplan's own writers do, so no write lands between them.
    if (!careless) lock()
    const now = statSync(plan)
    if (!careless && (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs || now.size !== before.size)) {
      unlock()
      raced++
      continue
    }
    renameSync(temp, plan)
    lastSaved = next
    if (!careless) unlock()
    if (edit.agent) touched.add(edit.agent)
    const seenLines = (text.match(/^- editor line \d+/gm) ?? []).map((l) => Number(l.slice(14)))
    appendFileSync(record, JSON.stringify({n, ...edit, runsBefore, time: Date.now(), seen: seenLines, ino: before.ino}) + '\n')
    break
  }
}
appendFileSync(record, JSON.stringify({kind: 'end', reread: raced}) + '\n')
