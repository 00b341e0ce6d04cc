import {join} from 'node:path'
import type {ResultPromise} from 'execa'
import {startCli} from '../../helpers/run-cli.js'

/** A shell agent that asks `question` until it has an answer, then says what it got (counted in `log`). */
export function askingAgent(id: string, question: string, log: string, dir: string): string {
  const body = [
    `echo ${id} >> '${log}'`,
    `if [ -n "$MDPLAN_ANSWER" ]; then printf '%s' "$MDPLAN_ANSWER" > '${join(dir, `answer-${id}.txt`)}'; echo RESULT: SUCCESS; exit 0; fi`,
    `echo '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'`,
    `printf 'RESULT: QUESTION\\nQuestion: ${question}\\nContext: none\\nOptions:\\n1. sqlite\\n2. <img src=x onerror=window.pwned=3>\\n'`
  ]
  return [`### ${id}: ${id.toLowerCase()}`, '- **depends_on**: []', '- **prompt**: |', ...body.map((line) => `    ${line}`), ''].join('\n')
}

/** An agent running `script` (lines of shell). */
export function shellAgent(id: string, dependsOn: string[], script: string[]): string {
  return [`### ${id}: ${id.toLowerCase()}`, `- **depends_on**: [${dependsOn.join(', ')}]`, '- **prompt**: |', ...script.map((line) => `    ${line}`), ''].join('\n')
}

export function planText(agents: string[], front: string[] = []): string {
  return ['---', 'runner: shell', 'max_attempts: 1', ...front, '---', '', '# Parallel Plan: serve', '', '## Agents', '', ...agents].join('\n')
}

/** `mdplan serve ARGS --port 0` in `cwd`; resolves once it printed its URL. */
export async function startServe(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{url: string; base: string; port: number; process: ResultPromise}> {
  const child = startCli(['serve', ...args, '--port', '0'], {cwd, env})
  let out = ''
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mdplan serve printed no URL: ${out}`)), 20_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const url = /(http:\/\/\S+)/.exec(out)?.[1]
      const port = /port (\d+)/.exec(out)?.[1]
      if (url && port) {
        clearTimeout(timer)
        resolve({url, base: `http://127.0.0.1:${port}`, port: Number(port), process: child})
      }
    })
    void child.then((result) => reject(new Error(`mdplan serve exited ${result.exitCode}: ${result.all}`)))
  })
}
