import {mkdir, mkdtemp, readdir, readFile, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Compile `src/` into a temp folder a plain `node` child can import (the child must be a real process we can
 * SIGKILL, so it cannot live inside vitest). `node_modules` is linked so `execa` resolves. Returns the folder;
 * the modules are under it as under `src/` (`<folder>/git/`, `<folder>/layout/`, …): every folder, so a module
 * that moves or gains an import keeps working here.
 */
export async function transpileGitModules(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'mdplan-gitjs-'))
  await writeFile(join(out, 'package.json'), '{"type": "module"}\n')
  await symlink(join(repoRoot, 'node_modules'), join(out, 'node_modules'), 'dir')
  const source = join(repoRoot, 'src')
  for (const entry of await readdir(source, {recursive: true, withFileTypes: true})) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
    const from = join(entry.parentPath, entry.name)
    const to = join(out, relative(source, from)).replace(/\.ts$/, '.js')
    const js = ts.transpileModule(await readFile(from, 'utf8'), {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}}).outputText
    await mkdir(dirname(to), {recursive: true})
    await writeFile(to, js)
  }
  return out
}
