import {execFileSync, spawnSync} from 'node:child_process'
import {copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {installTargets} from '../../../src/init/install-commands.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const bin = join(root, 'bin/mdplan.js')

// The bins run the single-file bundle dist/mdplan.cjs, not src/: what it finds
// beside itself (package.json, templates/) must be what the modules find.
describe('the bundled CLI', () => {
  it('reports the version in package.json', () => {
    const {version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}
    expect(execFileSync(process.execPath, [bin, '--version'], {encoding: 'utf8'}).trim()).toBe(version)
  })

  it('installs the templates shipped at the package root', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-bundle-'))
    execFileSync(process.execPath, [bin, 'init'], {cwd: dir, encoding: 'utf8'})
    for (const target of installTargets) {
      const written = readFileSync(join(dir, target.path), 'utf8')
      const template = readFileSync(join(root, 'templates', target.template), 'utf8')
      // The installed file is the template plus mdplan's stamp.
      expect(written).toContain(template.trim().split('\n').at(-1)!)
      expect(written.length).toBeGreaterThan(template.length / 2)
    }
  })

  it('loads with the code cache the build made for it', () => {
    const used = execFileSync(process.execPath, ['--input-type=module', '-e', "const {loadCli} = await import('./bin/load-cli.js'); console.log(loadCli().cacheUsed)"], {cwd: root, encoding: 'utf8'})
    expect(used.trim()).toBe('true')
  })

  it('never uses a cache made for other bytes, even of the same length', () => {
    // V8 itself checks only the source's length: an edited bundle with its old cache would run old code.
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-bundle-'))
    mkdirSync(join(dir, 'dist'))
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'))
    const bundle = readFileSync(join(root, 'dist/mdplan.cjs'), 'utf8')
    const said = 'Run a Markdown plan of parallel coding agents.'
    expect(bundle).toContain(said)
    writeFileSync(join(dir, 'dist/mdplan.cjs'), bundle.replace(said, said.replace('agents.', 'agentZ.')))
    copyFileSync(join(root, 'dist/mdplan.cjs.cache'), join(dir, 'dist/mdplan.cjs.cache'))
    const script = `const {loadCli} = await import(${JSON.stringify(join(root, 'bin/load-cli.js'))}); const {cli, cacheUsed} = loadCli(${JSON.stringify(join(dir, 'dist/mdplan.cjs'))}); console.log(cacheUsed); await cli.main(['--help'])`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(out.split('\n')[0]).toBe('false')
    expect(out).toContain('coding agentZ.')
  })

  it('runs status, validate and graph from the small read-only bundle, without the whole CLI', () => {
    // A package with the read-only bundle alone: those commands work, the others say the CLI is missing.
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-bundle-'))
    cpSync(join(root, 'bin'), join(dir, 'bin'), {recursive: true})
    mkdirSync(join(dir, 'dist'))
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'))
    for (const file of ['mdplan-read.cjs', 'mdplan-read.cjs.cache']) copyFileSync(join(root, 'dist', file), join(dir, 'dist', file))
    expect(readFileSync(join(root, 'dist/mdplan-read.cjs')).length).toBeLessThan(readFileSync(join(root, 'dist/mdplan.cjs')).length * 0.8)
    const plan = join(root, 'plans/demo.md')
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'bin/mdplan.js'), ...args], {cwd: dir, encoding: 'utf8'})
    for (const args of [['status', plan], ['validate', plan], ['graph', plan], ['status', '--json', plan]]) {
      const result = cli(...args)
      expect(result.stderr).toBe('')
      expect(result.status).toBe(0)
      expect(result.stdout).toBe(spawnSync(process.execPath, [bin, ...args], {cwd: dir, encoding: 'utf8'}).stdout)
    }
    // Usage errors are the same whichever bundle answers.
    const bad = cli('status')
    expect(bad.status).toBe(2)
    expect(bad.stderr).toBe(spawnSync(process.execPath, [bin, 'status'], {cwd: dir, encoding: 'utf8'}).stderr)
    expect(cli('run', plan).stderr).toContain(`${join(dir, 'dist/mdplan.cjs')} is missing`)
    // And the read-only bundle loads with its own code cache.
    const used = execFileSync(process.execPath, ['--input-type=module', '-e', "const {loadCli, readBundleFile} = await import('./bin/load-cli.js'); console.log(loadCli(readBundleFile).cacheUsed)"], {cwd: root, encoding: 'utf8'})
    expect(used.trim()).toBe('true')
  })

  it('runs status from its own bundle, alone, with its own code cache', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-bundle-'))
    cpSync(join(root, 'bin'), join(dir, 'bin'), {recursive: true})
    mkdirSync(join(dir, 'dist'))
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'))
    for (const file of ['mdplan-status.cjs', 'mdplan-status.cjs.cache']) copyFileSync(join(root, 'dist', file), join(dir, 'dist', file))
    expect(readFileSync(join(root, 'dist/mdplan-status.cjs')).length).toBeLessThan(readFileSync(join(root, 'dist/mdplan-read.cjs')).length * 0.8)
    const plan = join(root, 'plans/demo.md')
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'bin/mdplan.js'), ...args], {cwd: dir, encoding: 'utf8'})
    for (const args of [['status', plan], ['status', '--json', plan], ['status', plan, '--help'], ['status'], ['status', plan, 'extra']]) {
      const result = cli(...args)
      const whole = spawnSync(process.execPath, [bin, ...args], {cwd: dir, encoding: 'utf8', env: {...process.env, MDPLAN_READ_BUNDLE: '0'}})
      expect({status: result.status, stdout: result.stdout, stderr: result.stderr}).toEqual({status: whole.status, stdout: whole.stdout, stderr: whole.stderr})
    }
    expect(cli('validate', plan).stderr).toContain(`${join(dir, 'dist/mdplan.cjs')} is missing`)
    const used = execFileSync(process.execPath, ['--input-type=module', '-e', "const {loadCli, statusBundleFile} = await import('./bin/load-cli.js'); console.log(loadCli(statusBundleFile).cacheUsed)"], {cwd: root, encoding: 'utf8'})
    expect(used.trim()).toBe('true')
  })

  it('says how to build it when a checkout was never built', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-bundle-'))
    cpSync(join(root, 'bin'), join(dir, 'bin'), {recursive: true})
    const result = spawnSync(process.execPath, [join(dir, 'bin/mdplan.js'), '--version'], {encoding: 'utf8'})
    expect(result.status).toBe(1)
    expect(result.stderr).toBe(`mdplan: ${join(dir, 'dist/mdplan.cjs')} is missing: run \`npm run build\` (or \`npm ci\`) in ${dir}\n`)
  })
})
