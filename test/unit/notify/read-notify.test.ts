import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readNotify} from '../../../src/notify/read-notify.js'
import type {Point} from '../../../src/plan/types.js'

function plan(frontMatter: string): string {
  return ['---', 'runner: shell', frontMatter, '---', '', '# Parallel Plan: t', '', '## Agents', '', '### A: a', '- **depends_on**: []', '- **prompt**: |', '    true', ''].join('\n')
}

/** `line:column: reason` of each message, as `validate` names them. */
function problems(frontMatter: string): string[] {
  return readNotify(parsePlan(plan(frontMatter), 'plan.md')).diagnostics.map((d) => `${d.severity === 'warning' ? 'warning ' : ''}${(d.place as Point).line}:${(d.place as Point).column}: ${d.reason.replace('front matter `notify`: ', '')}`)
}

describe('front matter notify:', () => {
  it('reads a list of targets, each with a stable key, and an events filter', () => {
    const read = readNotify(
      parsePlan(
        plan(['notify:', '  - webhook_env: MDPLAN_HOOK', '    headers_env: {Authorization: HOOK_TOKEN}', '    events: [question, failed]', '  - slack_env: SLACK_HOOK', '  - command: [notify-me, --x]', '  - desktop: true'].join('\n')),
        'plan.md'
      )
    )
    expect(read.diagnostics).toEqual([])
    expect(read.targets.map(({key: _key, ...target}) => target)).toEqual([
      {type: 'webhook', url: {env: 'MDPLAN_HOOK'}, headersEnv: {Authorization: 'HOOK_TOKEN'}, events: ['question', 'failed']},
      {type: 'slack', url: {env: 'SLACK_HOOK'}, headersEnv: {}},
      {type: 'command', argv: ['notify-me', '--x']},
      {type: 'desktop'}
    ])
    expect(read.targets.map((target) => target.key)).toEqual([expect.stringMatching(/^webhook-[0-9a-f]{8}$/), expect.stringMatching(/^slack-/), expect.stringMatching(/^command-/), expect.stringMatching(/^desktop-/)])
    // The key does not depend on the filter or the order: a target's record survives both being edited.
    const again = readNotify(parsePlan(plan(['notify:', '  - desktop: true', '  - {webhook_env: MDPLAN_HOOK, headers_env: {Authorization: HOOK_TOKEN}}'].join('\n')), 'plan.md'))
    expect(again.targets.map((target) => target.key)).toEqual([read.targets[3]!.key, read.targets[0]!.key])
  })

  it('takes one target written as a mapping, and a plan without notify has none', () => {
    expect(readNotify(parsePlan(plan('notify: {webhook: "https://example.com/hook"}'), 'plan.md')).targets).toEqual([
      {type: 'webhook', url: {url: 'https://example.com/hook'}, headersEnv: {}, key: expect.stringMatching(/^webhook-/)}
    ])
    expect(readNotify(parsePlan(plan('concurrency: 2'), 'plan.md'))).toEqual({targets: [], diagnostics: []})
    expect(readNotify(parsePlan(plan('notify:\n  - desktop: false'), 'plan.md'))).toEqual({targets: [], diagnostics: []})
  })

  it('says every problem at the key or value it is about', () => {
    // Line 1 is the opening fence, line 2 `runner: shell`, so `notify:` is line 3.
    expect(
      problems(
        [
          'notify:',
          '  - webhook_env: MDPLAN_HOOK',
          '    events: [question, nope]',
          '  - command: "notify-me --x"',
          '  - {desktop: true, headers_env: {A: B}}',
          '  - webhook: https://user:pw@example.com/hook',
          '  - {command: [notify-me], webhook: "http://x"}',
          '  - {headers: {A: b}, desktop: yes}',
          '  - webhook_env: not a name',
          '  - {webhook: "ftp://x"}',
          '  - {slack_env: S, headers_env: {Authorization: "Bearer abc"}}',
          '  - {command: []}',
          '  - {events: [failed]}',
          '  - just a string'
        ].join('\n')
      )
    ).toEqual([
      '5:24: unknown event "nope" in `events` (known: question, review_waiting, failed, usage_limit, run_finished, run_stopped)',
      '6:14: `command` must be a list of arguments, run without a shell, such as `[notify-me, --x]`',
      '7:21: `headers_env` is for a webhook or Slack target',
      '8:14: `webhook`: no credentials in the plan; take the URL from the environment (`webhook_env`) or a header from it (`headers_env`)',
      '9:28: a notify target names one place; `command` and `webhook` are two: write each as its own item of the list',
      '10:6: unknown key `headers` in a notify target: headers come from environment variables only (`headers_env: {Authorization: MY_TOKEN}`)',
      '10:32: `desktop` must be `true` or `false`',
      '11:18: `webhook_env` must name an environment variable that holds the URL, such as `MDPLAN_HOOK`',
      '12:15: `webhook` must be an http or https URL (or name an environment variable with `webhook_env`)',
      '13:49: header `Authorization` must name an environment variable that holds its value (never the value itself)',
      '14:15: `command` must be a non-empty list of arguments, such as `[notify-me, --x]`',
      '15:5: a notify target needs one of `webhook`, `webhook_env`, `slack`, `slack_env`, `command`, `desktop`',
      '16:5: a notify target is a mapping such as `{webhook_env: MDPLAN_HOOK}`, `{command: [notify-me]}` or `{desktop: true}`'
    ])
  })

  it('warns of a Slack URL written in the plan, and refuses a target named twice or a notify that is no target', () => {
    expect(problems('notify:\n  - slack: https://hooks.slack.com/services/T/B/X')).toEqual(['warning 4:12: a Slack webhook URL is a secret: keep it in an environment variable and name it with `slack_env`'])
    expect(problems('notify:\n  - desktop: true\n  - desktop: true')).toEqual(['5:5: this target is named twice'])
    expect(problems('notify: 3')).toEqual(['3:9: must be a target (`{webhook_env: MDPLAN_HOOK}`) or a list of targets'])
    expect(problems('notify:')).toEqual(['3:8: must be a target (`{webhook_env: MDPLAN_HOOK}`) or a list of targets'])
  })
})
