import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/**
 * Child processes run plain Node (no TypeScript loader): transpile the
 * sources they import (store, plan, util) into a folder under node_modules,
 * so their bare imports still resolve to the project's node_modules and the
 * code is the current source, not a possibly stale `dist/`.
 */
export function transpileSources(): string {
  const root = path.resolve('.')
  const out = path.join(root, 'node_modules/.cache/mdplan-store-test', String(process.pid))
  const transpile = (file: string): void => {
    const source = fs.readFileSync(path.join(root, file), 'utf8')
    const {outputText} = ts.transpileModule(source, {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}})
    fs.writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), outputText)
  }
  for (const folder of ['src/store', 'src/plan', 'src/util']) {
    fs.mkdirSync(path.join(out, folder), {recursive: true})
    for (const name of fs.readdirSync(path.join(root, folder))) if (name.endsWith('.ts')) transpile(`${folder}/${name}`)
  }
  // The plan's parse cache keys its entries by mdplan's version.
  for (const file of ['src/version.ts', 'src/package-root.ts']) transpile(file)
  fs.writeFileSync(path.join(out, 'package.json'), '{"type": "module"}\n')
  return out
}
