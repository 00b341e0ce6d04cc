import {existsSync, readFileSync} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {startCli} from '../../helpers/run-cli.js'
import {askingAgent, planText, shellAgent, startServe} from './serve-helpers.js'

// Debian's Chromium (MDPLAN_CHROMIUM names another).
const chromium = process.env.MDPLAN_CHROMIUM ?? '/usr/bin/chromium'
const playwright: any = await import('playwright-core').catch(() => undefined)
const why = !playwright ? 'playwright-core is not installed' : !existsSync(chromium) ? `no Chromium at ${chromium}` : undefined
if (why) process.stdout.write(`mdplan tests: the page's browser tests are skipped: ${why}\n`)

// Screenshots of the page, desktop and phone widths: test-results/screenshots/, or MDPLAN_SCREENSHOTS
// (`MDPLAN_SCREENSHOTS=docs/screenshots` makes the ones the README shows).
const shots = resolve(new URL('../../..', import.meta.url).pathname, process.env.MDPLAN_SCREENSHOTS ?? 'test-results/screenshots')

async function shot(page: any, name: string): Promise<void> {
  await mkdir(shots, {recursive: true})
  const file = join(shots, `${name}.png`)
  await page.screenshot({path: file, fullPage: false})
  // A PNG, and not an empty one.
  expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG')
}

const cleanups: Array<() => unknown> = []
afterAll(async () => {
  for (const done of cleanups.reverse()) await done()
})

/** `mdplan run plan.md --serve` in `root`, and a Chromium page (desktop width) once the run printed its URL. */
async function servedRun(root: string): Promise<{run: ReturnType<typeof startCli>; url: string; page: any}> {
  const run = startCli(['run', 'plan.md', '--serve'], {cwd: root})
  cleanups.push(() => run.kill('SIGTERM'))
  let err = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL: ${err}`)), 20_000)
    run.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString()
      const found = /serving this run at (\S+)/.exec(err)?.[1]
      if (!found) return
      clearTimeout(timer)
      resolve(found)
    })
  })
  const browser = await playwright.chromium.launch({executablePath: chromium, args: ['--no-sandbox']})
  cleanups.push(() => browser.close())
  return {run, url, page: await browser.newPage({viewport: {width: 1200, height: 800}})}
}

describe.skipIf(why !== undefined)('the page of mdplan run --serve, in Chromium', () => {
  it('shows statuses change during a live run, answers a question in the page, and the agent resumes with it; output is text', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    cleanups.push(() => repo.cleanup())
    const log = join(repo.root, 'agents.log')
    const plan = planText([
      askingAgent('A', 'Which <b>db</b>?', log, repo.root),
      shellAgent('S', [], ['sleep 1', 'echo RESULT: SUCCESS']),
      // Keeps the run going until the answer comes (a run with only a question left ends).
      shellAgent('W', [], [`while [ ! -f '${join(repo.root, 'answer-A.txt')}' ]; do sleep 0.2; done`, 'echo RESULT: SUCCESS'])
    ], ['concurrency: 3'])
    await repo.commit('plan', {'plan.md': plan})
    const {run, url, page} = await servedRun(repo.root)
    const dialogs: string[] = []
    page.on('dialog', (dialog: {message(): string; dismiss(): Promise<void>}) => {
      dialogs.push(dialog.message())
      return dialog.dismiss()
    })
    await page.goto(url)
    const status = (id: string) => page.locator(`tr[data-agent="${id}"] .st`)
    // S runs, then completes: the change reaches the page as it is written.
    await expect.poll(() => status('S').textContent(), {timeout: 15_000}).toBe('completed')
    await expect.poll(() => status('A').textContent(), {timeout: 15_000}).toBe('needs_input')
    // Needs you first.
    expect(await page.locator('tr.agent').first().getAttribute('data-agent')).toBe('A')
    // The log of A's first attempt (the server stops with the run: looked at while A waits), with its markup, as text.
    await page.click('tr[data-agent="A"]')
    await page.click('.attempts button:has-text("attempt 1")')
    await expect.poll(() => page.locator('#log').textContent(), {timeout: 10_000}).toContain('<script>window.pwned=1</script>')
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    expect(await page.locator('#log script, #log img, .question img').count()).toBe(0)
    expect(dialogs).toEqual([])
    await page.click('#detail-close')
    await shot(page, 'grid-desktop')
    // The DAG, drawn from the server's layout.
    await page.click('button[data-tab="dag"]')
    await expect.poll(() => page.locator('#dagbox g[data-agent]').count(), {timeout: 10_000}).toBe(3)
    await shot(page, 'dag-desktop')
    // A phone's screen: nothing wider than it.
    await page.setViewportSize({width: 390, height: 844})
    for (const tab of ['agents', 'questions', 'dag']) {
      await page.click(`button[data-tab="${tab}"]`)
      expect(await page.evaluate('document.documentElement.scrollWidth'), tab).toBeLessThanOrEqual(390)
      await shot(page, `${tab === 'agents' ? 'grid' : tab}-phone`)
    }
    await page.setViewportSize({width: 1200, height: 800})
    await page.click('button[data-tab="questions"]')
    const card = page.locator('.question[data-agent="A"]')
    expect(await card.locator('h3').textContent()).toBe('A: Which <b>db</b>?')
    expect(await card.locator('.options button').nth(1).textContent()).toBe('2. <img src=x onerror=window.pwned=3>')
    await card.locator('.options button').first().click()
    await expect.poll(() => readFile(join(repo.root, 'plan.md'), 'utf8'), {timeout: 10_000}).toMatch(/- \*\*answer\*\*: 1\n/)
    await shot(page, 'question-answered-desktop')
    await page.setViewportSize({width: 390, height: 844})
    await shot(page, 'question-answered-phone')
    await page.setViewportSize({width: 1200, height: 800})
    await page.click('button[data-tab="agents"]')
    await expect.poll(() => status('A').textContent(), {timeout: 20_000}).toBe('completed')
    expect(await readFile(join(repo.root, 'answer-A.txt'), 'utf8')).toBe('1')
    expect((await readFile(log, 'utf8')).split('\n').filter((line) => line === 'A')).toHaveLength(2)
    expect(await repo.read('plan.md')).toMatch(/- \*\*answer\*\*: 1\n/)
    expect((await run).exitCode).toBe(0)
  }, 90_000)

  it('approves and sends back work awaiting review in the page: the run going on reruns one with the note, merges the other and starts its dependant', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    cleanups.push(() => repo.cleanup())
    const log = join(repo.root, 'agents.log')
    const done = join(repo.root, 'b-done')
    const gated = (id: string) => shellAgent(id, [], [`echo "${id} \${MDPLAN_REVIEW:-none}" >> '${log}'`, 'echo RESULT: SUCCESS']).replace('- **prompt**', '- **review**: true\n- **prompt**')
    const plan = planText([
      gated('A'),
      gated('E'),
      shellAgent('B', ['A'], [`echo B >> '${log}'`, `touch '${done}'`, 'echo RESULT: SUCCESS']),
      // Keeps the run going until B has run (a run with only reviews left ends).
      shellAgent('W', [], [`while [ ! -f '${done}' ]; do sleep 0.2; done`, 'echo RESULT: SUCCESS'])
    ], ['concurrency: 4'])
    await repo.commit('plan', {'plan.md': plan})
    const {run, url, page} = await servedRun(repo.root)
    await page.goto(url)
    const status = (id: string) => page.locator(`tr[data-agent="${id}"] .st`)
    await expect.poll(() => status('A').textContent(), {timeout: 15_000}).toBe('awaiting_review')
    await expect.poll(() => status('E').textContent(), {timeout: 15_000}).toBe('awaiting_review')
    expect(await status('B').textContent()).toBe('pending')
    // Needs you first.
    expect(await page.locator('tr.agent').first().getAttribute('data-agent')).toMatch(/^[AE]$/)
    // Send E back with a note: the row's Reject opens E, where the note is written.
    await page.click('tr[data-agent="E"] button[data-review="reject"]')
    await page.fill('#detail-edits input[data-review-note="E"]', 'use tabs')
    await page.click('#detail-edits button[data-review="reject"]')
    await expect.poll(async () => (await readFile(log, 'utf8')).includes('E use tabs'), {timeout: 20_000}).toBe(true)
    await expect.poll(() => status('E').textContent(), {timeout: 20_000}).toBe('awaiting_review')
    expect(await status('B').textContent()).toBe('pending')
    await page.click('tr[data-agent="A"] button[data-review="approve"]')
    await expect.poll(() => status('B').textContent(), {timeout: 20_000}).toBe('completed')
    expect(await status('A').textContent()).toBe('completed')
    // E's new work still waits for review: the run ends needing a person.
    expect((await run).exitCode).toBe(1)
    expect((await readFile(log, 'utf8')).split('\n').filter(Boolean).sort()).toEqual(['A none', 'B', 'E none', 'E use tabs'])
    expect(await repo.read('plan.md')).toMatch(/^\| A \| completed \|.*review: approved \|$/m)
  }, 90_000)

  it("after a run ends, its page and another server's page show the plan file's final table (counted from the file)", async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    cleanups.push(() => repo.cleanup())
    const log = join(repo.root, 'agents.log')
    const go = join(repo.root, 'go')
    const ids = Array.from({length: 19}, (_, i) => `T${i}`)
    const plan = planText([
      // Holds the run until both pages are open.
      shellAgent('G', [], [`while [ ! -f '${go}' ]; do sleep 0.1; done`, `echo G >> '${log}'`, 'echo RESULT: SUCCESS']),
      ...ids.map((id, i) => shellAgent(id, i % 3 === 0 ? ['G'] : [`T${i - 1}`], [`echo ${id} >> '${log}'`, 'echo RESULT: SUCCESS']))
    ], ['concurrency: 4'])
    await repo.commit('plan', {'plan.md': plan})
    const other = await startServe(['plan.md'], repo.root)
    cleanups.push(() => other.process.kill('SIGTERM'))
    const {run, url, page} = await servedRun(repo.root)
    const second = await page.context().browser().newPage()
    await page.goto(url)
    await second.goto(other.url)
    for (const shown of [page, second]) await expect.poll(() => shown.locator('tbody tr').count(), {timeout: 15_000}).toBe(20)
    await writeFile(go, '')
    expect((await run).exitCode).toBe(0)
    const inFile = ((await repo.read('plan.md')).match(/^\| \S+ \| completed \|/gm) ?? []).length
    expect(inFile).toBe(20)
    expect((await readFile(log, 'utf8')).split('\n').filter(Boolean)).toHaveLength(20)
    // The run's server is gone: its page shows what it sent last, which must be the last write.
    for (const shown of [page, second]) await expect.poll(() => shown.locator('tbody .st-completed').count(), {timeout: 10_000}).toBe(inFile)
  }, 90_000)
})
