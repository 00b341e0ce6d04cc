import {mkdir, mkdtemp, readdir, readFile, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Compile `src/git/*.ts` into a temp folder a plain `node` child can import
 * (the child must be a real process we can SIGKILL, so it cannot live inside
 * vitest). `node_modules` is linked so `execa` resolves. Returns the folder;
 * the modules are in `<folder>/git/` (and `<folder>/util/`, which they import).
 */
export async function transpileGitModules(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), 'mdplan-gitjs-'))
  await writeFile(join(out, 'package.json'), '{"type": "module"}\n')
  await symlink(join(repoRoot, 'node_modules'), join(out, 'node_modules'), 'dir')
  // src/git imports src/util (makeDir: the folder every `.mdplan/` is made through), and runGit the spawn helper.
  const only: Record<string, string[]> = {runners: ['spawn-helper.ts', 'spawn-helper-source.ts']}
  for (const folder of ['git', 'util', 'runners']) {
    await mkdir(join(out, folder))
    const source = join(repoRoot, 'src', folder)
    for (const name of await readdir(source)) {
      if (!name.endsWith('.ts') || (only[folder] && !only[folder].includes(name))) continue
      const text = await readFile(join(source, name), 'utf8')
      const js = ts.transpileModule(text, {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}}).outputText
      await writeFile(join(out, folder, name.replace(/\.ts$/, '.js')), js)
    }
  }
  return out
}
