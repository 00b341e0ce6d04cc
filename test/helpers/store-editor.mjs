// A person editing the plan while a run writes it: `count` edits, each a read,
// a change, and an in-place write (as most editors save), 10–30 ms apart:
// far faster than a person, slow enough that one cell is not edited twice
// while mdplan is still folding in the first edit.
// argv: <plan file> <count> <seed>. Prints what the file must hold at the end.
import fs from 'node:fs'

const [file, countText, seedText] = process.argv.slice(2)
const count = Number(countText)
let seed = Number(seedText) >>> 0
const next = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const rows = ['F', 'G', 'H', 'I', 'J']
const statuses = ['pending', 'completed', 'failed']
const journal = []
const notes = {}
const status = {}

for (let i = 0; i < count; i++) {
  const text = fs.readFileSync(file, 'utf8')
  let edited
  if (i % 3 === 0) {
    // Another section: a line of its own.
    const line = `- journal ${i}`
    journal.push(line)
    edited = text.replace('<!-- journal -->\n', `<!-- journal -->\n${line}\n`)
  } else {
    // A row of the table, in turn, so one cell is not edited twice in a row.
    const agent = rows[Math.floor(i / 3) % rows.length]
    const lines = text.split('\n')
    const at = lines.findIndex((line) => line.startsWith(`| ${agent} |`))
    const cells = lines[at].split('|')
    if (i % 3 === 1) {
      notes[agent] = `human ${i}`
      cells[5] = ` ${notes[agent]} `
    } else {
      const choices = statuses.filter((value) => value !== cells[2].trim())
      status[agent] = choices[Math.floor(next() * choices.length)]
      cells[2] = ` ${status[agent]} `
    }
    lines[at] = cells.join('|')
    edited = lines.join('\n')
  }
  fs.writeFileSync(file, edited)
  await new Promise((resolve) => setTimeout(resolve, 10 + Math.floor(next() * 20)))
}
process.stdout.write(JSON.stringify({journal, notes, status}) + '\n')
