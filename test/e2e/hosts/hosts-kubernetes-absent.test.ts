import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'
import {installAdvice, loadKubernetes} from '../../../src/hosts/kubernetes/kubernetes-client.js'
import {packed} from '../../helpers/packed.js'
import {root, shellPlan} from '../../helpers/run-cli.js'

// The Kubernetes client is an optional peer dependency (package.json): a plain `npm install -g mdplan` leaves it
// out. A plan with a kubernetes host must then fail before anything launches, with one line saying what to run.

/** What Node throws for a package that is not installed anywhere it looks. */
function notFound(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /x/dist/mdplan.cjs`), {code: 'MODULE_NOT_FOUND'})
}

const absent = (id: string): never => {
  throw notFound(id)
}

describe('the Kubernetes client, not installed', () => {
  it('is named with the command that puts it where mdplan looks, for each way mdplan is installed', () => {
    const base = mkdtempSync(join(tmpdir(), 'mdplan-k8s-absent-'))
    // A global install: <prefix>/lib/node_modules/mdplan.
    const global = join(base, 'prefix', 'lib', 'node_modules', 'mdplan')
    expect(loadKubernetes(absent, global + '/')).toEqual({
      error: `the Kubernetes client (@kubernetes/client-node 1.x) is not installed: mdplan leaves it out unless a kubernetes host needs it; run \`npm install -g @kubernetes/client-node@1\` (it must sit beside mdplan, in ${join(base, 'prefix', 'lib', 'node_modules')})`
    })
    // A project's dependency: <project>/node_modules/mdplan, with the project's package.json.
    const project = join(base, 'app')
    mkdirSync(join(project, 'node_modules', 'mdplan'), {recursive: true})
    writeFileSync(join(project, 'package.json'), '{}\n')
    expect(installAdvice(join(project, 'node_modules', 'mdplan') + '/')).toBe(`run \`npm install @kubernetes/client-node@1\` in ${project}`)
    // npx's own cache, and a checkout of mdplan (where it is a dev dependency).
    expect(installAdvice(join(base, '.npm', '_npx', '1a2b', 'node_modules', 'mdplan') + '/')).toBe('run mdplan as `npx -p mdplan -p @kubernetes/client-node@1 mdplan run <plan>`')
    expect(installAdvice(join(base, 'mdplan') + '/')).toBe(`run \`npm install\` in ${join(base, 'mdplan')} (a checkout of mdplan has it as a dev dependency)`)
  })

  it('tells a client that cannot load (a dependency of it missing) from one not installed, on one line', () => {
    const global = join(tmpdir(), 'prefix', 'lib', 'node_modules', 'mdplan') + '/'
    const broken = loadKubernetes(() => absent('js-yaml'), global)
    expect(broken).toEqual({error: expect.stringMatching(/^could not load @kubernetes\/client-node \(Cannot find module 'js-yaml'\): Kubernetes hosts need Node 20\.19 or newer; on one, reinstall the client: run `npm install -g @kubernetes\/client-node@1`/)})
    expect('error' in broken && broken.error).not.toContain('\n')
    // Installed: the module itself.
    const module = {KubeConfig: class {}}
    expect(loadKubernetes(() => module, global)).toBe(module)
  })
})

describe('mdplan installed without the Kubernetes client (the packed files, no node_modules)', () => {
  it('starts and runs a plan with no kubernetes host, and refuses one with a kubernetes host in one line, launching nothing', async () => {
    // The tarball's files, laid out as a global install would put them, with no dependency installed at all.
    const prefix = mkdtempSync(join(tmpdir(), 'mdplan-k8s-absent-prefix-'))
    const installed = join(prefix, 'lib', 'node_modules', 'mdplan')
    for (const file of (await packed()).files) {
      mkdirSync(dirname(join(installed, file.path)), {recursive: true})
      copyFileSync(join(root, file.path), join(installed, file.path))
    }
    // No node_modules of its own; but one in a folder above the temp folder (a shared machine's /tmp/node_modules)
    // would still lend it the client, as Node resolves upwards: a preload hides the client from resolution as Node
    // would say it is missing.
    const hide = join(prefix, 'hide-kubernetes-client.cjs')
    writeFileSync(
      hide,
      [
        "const Module = require('node:module')",
        'const resolve = Module._resolveFilename',
        'Module._resolveFilename = function (request, ...rest) {',
        "  if (request === '@kubernetes/client-node') throw Object.assign(new Error(`Cannot find module '${request}'`), {code: 'MODULE_NOT_FOUND'})",
        '  return resolve.call(this, request, ...rest)',
        '}',
        ''
      ].join('\n')
    )
    const env = {NO_COLOR: '1', NODE_OPTIONS: `--require ${hide}`}
    const mdplan = (args: string[], cwd: string) => execa(process.execPath, [join(installed, 'bin', 'mdplan.js'), ...args], {cwd, env, reject: false, all: true})

    // Kubernetes hosts take the agents' code through git: a repository, as a real run has.
    const work = mkdtempSync(join(tmpdir(), 'mdplan-k8s-absent-work-'))
    await execa('git', ['init', '-q'], {cwd: work})
    expect((await mdplan(['--version'], work)).stdout).toMatch(/^\d+\.\d+\.\d+/)
    writeFileSync(join(work, 'plain.md'), shellPlan({A: {script: 'touch a-ran\necho "RESULT: SUCCESS"'}}))
    const plain = await mdplan(['run', 'plain.md'], work)
    expect(plain.exitCode, plain.all).toBe(0)

    const text = shellPlan({B: {script: 'touch b-ran\necho "RESULT: SUCCESS"'}}, {frontMatter: ['hosts:', '  k8s: {type: kubernetes, image: localhost/agent:1}', 'host: k8s'].join('\n')})
    writeFileSync(join(work, 'kube.md'), text)
    // A repository with no commit is refused before any host is asked (its agents start from one): commit first.
    const git = {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com'}
    await execa('git', ['add', '-A'], {cwd: work})
    await execa('git', ['commit', '-q', '-m', 'start'], {cwd: work, env: git})
    const kube = await mdplan(['run', 'kube.md'], work)
    expect(kube.exitCode, kube.all).toBe(2)
    const lines = kube.stderr.split('\n').filter((line) => line.includes('@kubernetes/client-node'))
    // One line, naming the host, what is missing and the one command to run (its agents have no other host).
    expect(lines, kube.all).toHaveLength(1)
    expect(lines[0]).toContain(`${join(work, 'kube.md')}: agent B: no host of its pool (k8s) answers: host k8s (kubernetes): the Kubernetes client (@kubernetes/client-node 1.x) is not installed: mdplan leaves it out unless a kubernetes host needs it; run \`npm install -g @kubernetes/client-node@1\` (it must sit beside mdplan, in ${join(prefix, 'lib', 'node_modules')})`)
    expect(readFileSync(join(work, 'kube.md'), 'utf8')).toBe(text)
    expect(() => readFileSync(join(work, 'b-ran'))).toThrow()
  }, 60_000)
})
