import {beforeAll, describe, expect, it} from 'vitest'
import {builtinRunners} from '../../../src/runners/builtin-runners.js'
import type {ProjectFiles} from '../../../src/runners/host-auth.js'
import {authCheck} from '../../../src/hosts/remote-auth.js'
import {projectAuthFacts} from '../../../src/hosts/project-auth-facts.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

/** A runner's login on a host is its own `remoteAuth`: hosts/remote-auth.ts asks the Runner, never its name. */
const runner = (name: string) => builtinRunners.get(name)!
const none: ProjectFiles = {prefix: '', texts: new Map()}
const check = (name: string, passed: NodeJS.ProcessEnv = {}, project = none) => authCheck(runner(name), `/opt/${name}`, passed, 'dev@build1', project)

describe('the login check on a host, asked through the Runner', () => {
  it('says the preflight script’s words of each runner', () => {
    expect(check('claude')?.words).toEqual(['cli', '/opt/claude', 'auth', 'status'])
    expect(check('codex')?.words).toEqual(['cli', '/opt/codex', 'login', 'status'])
    expect(check('gemini')?.words).toEqual(['gemini', '/opt/gemini'])
    expect(check('opencode', {ANTHROPIC_API_KEY: 'k', 'BAD-NAME': 'x', UNSET: undefined})?.words).toEqual(['opencode', '/opt/opencode', 'ANTHROPIC_API_KEY'])
    expect(check('opencode')?.words).toEqual(['opencode', '/opt/opencode', '-'])
    expect(check('shell')).toBeUndefined()
  })

  it('asks nothing when the host passes a key from here', () => {
    expect(check('claude', {ANTHROPIC_API_KEY: 'k'})).toBeUndefined()
    expect(check('codex', {CODEX_API_KEY: 'k'})).toBeUndefined()
    expect(check('opencode', {OPENCODE_CONFIG_CONTENT: '{"provider": {}}'})).toBeUndefined()
  })

  it('judges what the host said, naming the host', () => {
    expect(check('claude')!.verdict({answer: {exitCode: 1, stdout: '{"loggedIn": false}', stderr: ''}, facts: []})).toMatch(
      /^claude is not logged in there .*run `claude auth login` on dev@build1,/
    )
    expect(check('claude')!.verdict({answer: {exitCode: 0, stdout: '{"loggedIn": true}', stderr: ''}, facts: []})).toBeUndefined()
    expect(check('codex')!.verdict({answer: {exitCode: 1, stdout: '', stderr: 'Not logged in'}, facts: []})).toMatch(/^codex is not logged in there/)
    expect(check('opencode')!.verdict({answer: {exitCode: 0, stdout: '0 credentials\n0 environment variables', stderr: ''}, facts: []})).toMatch(/^opencode has no provider there/)
    expect(check('gemini')!.verdict({facts: ['read']})).toMatch(/^gemini has no auth method there .*on dev@build1 and choose an auth method$/)
    expect(check('gemini')!.verdict({facts: ['read', 'env GEMINI_API_KEY set']})).toBeUndefined()
    expect(check('gemini')!.verdict({facts: []})).toBeUndefined()
    expect(check('codex')!.slow(60_000)).toMatch(/^codex's login could not be confirmed on dev@build1: `codex login status` did not answer within/)
    expect(check('gemini')!.slow(60_000)).toBe("gemini's auth could not be read on dev@build1")
  })

  it('reads the project files the runners name from HEAD, and judges them in the runner', async () => {
    const repo: TempRepo = await tempRepo({
      'a/b/.gemini/settings.json': '{"security": {"auth": {"selectedType": "gemini-api-key"}}}',
      'a/.env': 'export GOOGLE_CLOUD_PROJECT=p\n',
      'opencode.jsonc': '{"provider": {"local": {}}}',
      'a/b/unrelated.json': '{}'
    })
    await repo.write('a/b/.env', 'GEMINI_API_KEY=untracked\n')
    try {
      const project = await projectAuthFacts(repo.root, 'a/b/', [runner('gemini'), runner('opencode'), runner('claude')])
      expect(project.prefix).toBe('a/b/')
      expect([...project.texts.keys()].sort()).toEqual(['a/.env', 'a/b/.gemini/settings.json', 'opencode.jsonc'])
      expect(runner('gemini').projectAuthFiles!('a/')).toEqual(['a/.gemini/settings.json', 'a/.gemini/.env', 'a/.env', '.gemini/.env', '.env'])
      // The project's settings select a type: no verdict; its opencode.jsonc configures a provider: nothing to ask.
      expect(check('gemini', {}, project)!.verdict({facts: ['read']})).toBeUndefined()
      expect(check('opencode', {}, project)).toBeUndefined()
      expect((await projectAuthFacts(repo.root, 'a/b/', [runner('claude'), runner('shell')])).texts.size).toBe(0)
    } finally {
      await repo.cleanup()
    }
  })
})

beforeAll(isolateGitConfig)
