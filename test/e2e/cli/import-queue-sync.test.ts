import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {markIssueCompleted} from '../../../src/import/mark-issue-completed.js'
import {commitMessage} from '../../../src/git/commit-message.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const bin = fileURLToPath(new URL('../../../bin/mdplan.js', import.meta.url))
const mdplan = (cwd: string, ...args: string[]) => execa(process.execPath, [bin, ...args], {cwd, reject: false, stripFinalNewline: false})

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const line1 = '{"id":"ISS-1","title":"Add login","status":"pending","tags":["wave-1"]}'
const line2 = '{"id":"ISS-2","title":"Old work","status":"completed"}'
// Spaced JSON with a nested `status`: only the top-level value may change, and the spacing stays.
const line3 = '{"id": "ISS-3", "status": "planned", "title": "Docs", "extended_context": {"notes": {"status": "draft", "wave": 2}}}'
const line4 = '{"id":"ISS-4","title":"Logout","status":"pending","extended_context":{"notes":{"depends_on_issues":["ISS-1"]}}}'
const line5 = '{"id":"ISS-5","title":"Audit log","status":"pending"}'
const done = (line: string): string => line.replace(/"status":( ?)"(pending|planned)"/, '"status":$1"completed"')

describe('an imported plan keeps its issue queue in step', () => {
  it('import → run → import again → run: the queue marks each issue completed, byte for byte; the plan only grows', async () => {
    const queue = [line1, line2, line3].join('\n') // no final newline: it stays that way
    const repo = await tempRepo({'.workflow/issues/issues.jsonl': queue})
    repos.push(repo)
    const runner = `sh -c 'mkdir -p out && echo done > "out/$MDPLAN_AGENT.txt"'`
    const imported = await mdplan(repo.root, 'import', '.workflow/issues/issues.jsonl', '--out', 'plans/issues.md', '--runner', runner)
    expect(imported.stderr).toBe('')
    expect(imported.exitCode).toBe(0)
    // Commit each agent's work; E1 declares its output so that commit is the queue's own message.
    let plan = await repo.read('plans/issues.md')
    expect(plan).toMatch(/^---\nrunner: .*\nissues: \.\.\/\.workflow\/issues\/issues\.jsonl\n---\n/)
    plan = plan.replace('\n---\n', '\ncommit: true\n---\n').replace('- **issue**: ISS-1\n', '- **creates**: [`out/E1.txt`]\n- **issue**: ISS-1\n')
    await repo.write('plans/issues.md', plan)
    await repo.commit('plan')

    const first = await mdplan(repo.root, 'run', 'plans/issues.md', '--quiet')
    expect(first.exitCode).toBe(0)
    expect(await repo.read('.workflow/issues/issues.jsonl')).toBe([done(line1), line2, done(line3)].join('\n'))
    expect(await repo.git('log', '--format=%s')).toContain('feat(ISS-1): Add login')

    // The queue grows; importing it again adds only the new issues' agents and rows.
    const grown = [done(line1), line2, done(line3), line4, line5].join('\n') + '\n'
    await repo.write('.workflow/issues/issues.jsonl', grown)
    const before = await repo.read('plans/issues.md')
    const again = await mdplan(repo.root, 'import', '.workflow/issues/issues.jsonl', '--out', 'plans/issues.md')
    expect(again.stderr).toBe('')
    expect(again.stdout).toBe('plans/issues.md: 2 new issues → P3, E3, P4, E4 added\nNext: `mdplan run plans/issues.md`.\n')
    const after = await repo.read('plans/issues.md')
    expect(await repo.read('.workflow/issues/issues.jsonl')).toBe(grown)
    // Take away what was added: the plan as it was, byte for byte.
    const addedAgents = after.slice(after.indexOf('### P3:'), after.indexOf('## DAG Visualization'))
    const addedRows = /^\| [PE][34] \| pending \| — \| — \| \|\n/gm
    expect(after.match(addedRows)).toHaveLength(4)
    expect(after.replace(addedAgents, '').replace(addedRows, '')).toBe(before)
    const parsed = parsePlan(after, 'plans/issues.md')
    expect(parsed.messages.filter((m) => m.severity === 'error')).toEqual([])
    const deps = Object.fromEntries(parsed.agents.map((agent) => [agent.id, agent.dependsOn.map((dep) => dep.id)]))
    expect(deps).toMatchObject({P3: ['P1'], E3: ['P3', 'E1', 'E2'], P4: [], E4: ['P4', 'E2']})
    // Nothing new: nothing written.
    const third = await mdplan(repo.root, 'import', '.workflow/issues/issues.jsonl', '--out', 'plans/issues.md')
    expect(third.stdout).toBe('plans/issues.md: no new open issue in .workflow/issues/issues.jsonl; the plan is unchanged.\n')
    expect(await repo.read('plans/issues.md')).toBe(after)

    await repo.commit('grown')
    const second = await mdplan(repo.root, 'run', 'plans/issues.md', '--quiet')
    expect(second.exitCode).toBe(0)
    expect(await repo.read('.workflow/issues/issues.jsonl')).toBe([done(line1), line2, done(line3), done(line4), done(line5)].join('\n') + '\n')
  })

  it('marks one line in place, CRLF, BOM and other lines kept; a missing or finished issue changes nothing', () => {
    const text = '\ufeff' + [line1, line3, line2].join('\r\n') + '\r\n'
    expect(markIssueCompleted(text, 'ISS-3')).toEqual({outcome: 'updated', text: '\ufeff' + [line1, done(line3), line2].join('\r\n') + '\r\n'})
    expect(markIssueCompleted(text, 'ISS-1').text).toBe('\ufeff' + [done(line1), line3, line2].join('\r\n') + '\r\n')
    expect(markIssueCompleted(text, 'ISS-2')).toEqual({outcome: 'already-completed'})
    expect(markIssueCompleted(text, 'ISS-9')).toEqual({outcome: 'not-found'})
    // No status key: the line gains one.
    expect(markIssueCompleted('{"id":7}\n', '7').text).toBe('{"id":7,"status":"completed"}\n')
  })

  it('commit messages: the queue’s convention for imported agents, mdplan’s own otherwise', () => {
    const field = (value: string) => ({key: 'x', rawKey: 'x', value, position: {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}})
    expect(commitMessage('Issues', {id: 'E1', name: 'exec-ISS-1', fields: {issue: field('ISS-1'), issue_title: field('Add login')}})).toBe('feat(ISS-1): Add login')
    expect(commitMessage('Auth', {id: 'B', name: 'api', fields: {}})).toBe('Auth · B: api')
  })
})
