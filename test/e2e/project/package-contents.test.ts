import {describe, expect, it} from 'vitest'
import {packed} from '../../helpers/packed.js'

// A lean install: the tarball holds the bins, the bundles (with the code caches of `run` and `status`) and the
// templates, and nothing a user does not run: no source maps, no module-by-module dist/, no sources or tests.
describe('the npm package', () => {
  it('is under 2 MB, with the bundles and no source maps, sources or tests', async () => {
    const pack = await packed()
    const paths = pack.files.map((file) => file.path)
    expect(paths).toEqual(expect.arrayContaining(['bin/mdplan.js', 'bin/load-cli.js', 'dist/mdplan.cjs', 'dist/mdplan-read.cjs', 'dist/mdplan-status.cjs', 'dist/spawn-helper-source.cjs', 'dist/mdplan.build', 'package.json']))
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([])
    expect(paths.filter((path) => /^(src|test|fixtures|bench|scripts|plans|docs)\//.test(path))).toEqual([])
    // Every file in dist/ is a bundle or belongs to one: the CLI needs nothing else of it.
    expect(paths.filter((path) => path.startsWith('dist/') && !/^dist\/[^/]+\.(cjs|cjs\.cache|build)$/.test(path))).toEqual([])
    expect(pack.size, `${pack.size} bytes packed`).toBeLessThan(2_000_000)
  })
})
