import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {installTargets} from '../src/init/install-commands.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/mdplan.js')

// The bins run the single-file bundle dist/mdplan.js, not src/: what it finds
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
})
