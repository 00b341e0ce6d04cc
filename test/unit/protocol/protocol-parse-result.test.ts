import {describe, expect, it} from 'vitest'
import {parseResult} from '../../../src/protocol/parse-result.js'
import {parseCompletionReport} from '../../../src/protocol/parse-completion-report.js'

describe('parseResult', () => {
  it.each([
    ['no RESULT line', 'All done, I think.', undefined],
    ['plain success', 'work\n\nRESULT: SUCCESS\nAdded the Credential type\n', {kind: 'success', note: 'Added the Credential type'}],
    ['bold success with inline note', 'x\n**RESULT: SUCCESS** - types added', {kind: 'success', note: 'types added'}],
    ['heading success', '## RESULT: SUCCESS\n\n- Created src/lib/types.ts', {kind: 'success', note: 'Created src/lib/types.ts'}],
    ['bold key only', '**RESULT:** SUCCESS\nDone.', {kind: 'success', note: 'Done.'}],
    ['success without details', 'RESULT: SUCCESS', {kind: 'success', note: undefined}],
    ['lower case', 'result: success\nok', {kind: 'success', note: 'ok'}],
    [
      'error with description and details',
      'RESULT: ERROR\nDescription: tests fail after the change\nDetails: 3 of 12 tests fail\nin cache.test.ts',
      {kind: 'error', description: 'tests fail after the change', details: '3 of 12 tests fail\nin cache.test.ts'}
    ],
    ['bold error keys', 'RESULT: ERROR\n**Description:** build broke\n**Details:** tsc exit 2', {kind: 'error', description: 'build broke', details: 'tsc exit 2'}],
    ['error without keys', 'RESULT: ERROR\nCould not find the file', {kind: 'error', description: 'Could not find the file', details: undefined}],
    ['last RESULT line wins', 'RESULT: ERROR\nDescription: old\n\nRetried.\nRESULT: SUCCESS\nfine', {kind: 'success', note: 'fine'}],
    ['fenced RESULT lines are examples', 'End with:\n```\nRESULT: ERROR\n```\nRESULT: SUCCESS\nok', {kind: 'success', note: 'ok'}]
  ])('%s', (_, text, expected) => {
    expect(parseResult(text)).toEqual(expected)
  })

  it('reads a question with context, resume state block and options', () => {
    const text = [
      'I found two ways.',
      '',
      '**RESULT: QUESTION**',
      '**Question:** Which store should the cache use?',
      '**Context:** The plan names no store;',
      'both fit the Shared Contract.',
      '**Resume State:**',
      '```',
      'step: 3 of 5',
      '## not a heading',
      '```',
      '**Options:**',
      '1. Redis',
      '2. **SQLite** (simpler)',
      ''
    ].join('\n')
    expect(parseResult(text)).toEqual({
      kind: 'question',
      question: 'Which store should the cache use?',
      context: 'The plan names no store;\nboth fit the Shared Contract.',
      resumeState: 'step: 3 of 5\n## not a heading',
      options: ['Redis', 'SQLite (simpler)']
    })
  })

  it('reads a question on the RESULT line, YAML-style state and Option N lines', () => {
    const text = 'RESULT: QUESTION — Use tabs or spaces?\nContext: style guide is silent\nResume State: |\n  phase: lint\n  files: 2\nOption 1: tabs\nOption 2: spaces'
    expect(parseResult(text)).toEqual({
      kind: 'question',
      question: 'Use tabs or spaces?',
      context: 'style guide is silent',
      resumeState: 'phase: lint\nfiles: 2',
      options: ['tabs', 'spaces']
    })
  })

  it('reads options under Options: with dashes, and a question from the first free line', () => {
    const text = 'RESULT: QUESTION\nShould I delete the old API?\nContext: two callers remain\nOptions:\n- Yes, delete it\n- No, keep it\nResume State: done 2 of 4'
    expect(parseResult(text)).toEqual({
      kind: 'question',
      question: 'Should I delete the old API?',
      context: 'two callers remain',
      resumeState: 'done 2 of 4',
      options: ['Yes, delete it', 'No, keep it']
    })
  })
})

describe('parseCompletionReport', () => {
  it.each([
    ['none', 'RESULT: SUCCESS\nok', undefined],
    ['no RESULT, no heading', 'Files changed: a.ts', undefined],
    [
      'a heading and lists',
      'RESULT: SUCCESS\ndone\n\n## Completion Report\n\n**Files changed:**\n- `src/a.ts` (created)\n- src/b.ts\n\n**Checkpoint:** step 3 of 5 done\n\n**Discoveries:**\n- The API returns 204, not 200\n- Node 20 lacks `fs.glob`\n',
      {filesChanged: ['src/a.ts (created)', 'src/b.ts'], checkpoint: 'step 3 of 5 done', discoveries: ['The API returns 204, not 200', 'Node 20 lacks `fs.glob`']}
    ],
    [
      'COMPLETION REPORT with inline values',
      'COMPLETION REPORT\nFiles changed: a.ts, b.ts\nCheckpoint: all steps\nDiscoveries: none',
      {filesChanged: ['a.ts', 'b.ts'], checkpoint: 'all steps', discoveries: []}
    ],
    [
      'keys inside the RESULT block',
      'RESULT: ERROR\nDescription: stuck\nCheckpoint: step 2\nDiscoveries:\n* the fixture is stale',
      {filesChanged: [], checkpoint: 'step 2', discoveries: ['the fixture is stale']}
    ]
  ])('%s', (_, text, expected) => {
    expect(parseCompletionReport(text)).toEqual(expected)
  })
})
