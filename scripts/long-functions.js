#!/usr/bin/env node
// Functions longer than a person reads in one screen: `node scripts/long-functions.js [--max N] [folder…]`
// lists every function, method, arrow function and constructor in the folders' .ts files (default: src)
// whose span is over N lines (default 80), longest first, and exits 1 when there is one. A function's span
// counts what is nested in it: a 200-line closure holding small helpers is still 200 lines to read.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import ts from 'typescript'

const args = process.argv.slice(2)
const maxAt = args.indexOf('--max')
const max = maxAt === -1 ? 80 : Number(args[maxAt + 1])
const folders = args.filter((arg, index) => arg !== '--max' && (maxAt === -1 || index !== maxAt + 1))
if (folders.length === 0) folders.push('src')

/** Every .ts file under `path` (a file or a folder), declaration files left out. */
function files(path) {
  if (statSync(path).isFile()) return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  return readdirSync(path).flatMap((name) => files(join(path, name)))
}

const kinds = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor
])

/** The name a reader would search for: the function's own, or the variable or property it is assigned to. */
function nameOf(node) {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText()
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`
  return '(anonymous)'
}

const long = []
for (const folder of folders) {
  for (const file of files(folder)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (node) => {
      if (kinds.has(node.kind)) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
        const lines = end - start + 1
        if (lines > max) long.push({file: relative(process.cwd(), file), line: start + 1, name: nameOf(node), lines})
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
}
long.sort((a, b) => b.lines - a.lines)
for (const entry of long) console.log(`${entry.file}:${entry.line}: ${entry.name} is ${entry.lines} lines (at most ${max})`)
if (long.length > 0) {
  console.log(`${long.length} function${long.length === 1 ? '' : 's'} over ${max} lines`)
  process.exitCode = 1
}
