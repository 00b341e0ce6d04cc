import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'

// Real sshd daemons on 127.0.0.1 for the host tests (test/e2e/hosts/hosts-ssh.test.ts) and `npm run bench -- hosts`.

/** Where Debian's openssh-server puts the daemon. */
export const sshdPath = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((path) => existsSync(path))

/** Why the host tests cannot run here (printed once as a skip line), or undefined when they can. */
export function sshdMissing() {
  if (!sshdPath) return 'sshd is not installed (apt-get install openssh-server; .ci/run does it)'
  if (!existsSync('/usr/bin/ssh')) return 'ssh is not installed (apt-get install openssh-client)'
  return undefined
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/**
 * Real sshd daemons on 127.0.0.1, one per host, children of the test (-D),
 * (`options.leanShell`: sessions skip the account's ~/.bashrc; `options.env`:
 * variables every session gets, such as a HOME and PATH of the test's own),
 * with a throwaway host key and user key: `StrictModes no` and `UsePAM no` so
 * they run from a temp folder. Each is ready when it answers a command.
 */
export async function startSshd(count, options = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-sshd-'))
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'hostkey')])
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'userkey')])
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'userkey.pub')))
  const config = []
  const hosts = []
  const daemons = new Map()
  for (let index = 1; index <= count; index++) {
    const alias = `h${index}`
    const port = await freePort()
    const sshdConfig = join(dir, `sshd_config.${alias}`)
    await writeFile(
      sshdConfig,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'hostkey')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'PasswordAuthentication no',
        'PermitRootLogin prohibit-password',
        `PidFile ${join(dir, `sshd.${alias}.pid`)}`,
        'StrictModes no',
        'UsePAM no',
        'MaxStartups 100:30:200',
        'MaxSessions 200',
        // Every ssh call runs the account's login shell, and bash run by sshd reads ~/.bashrc unless it is a
        // nested shell (SHLVL set): `leanShell` measures hosts whose shell starts bare, whatever this machine's
        // ~/.bashrc does (here: pyenv init, about 90 ms and 150 processes per call).
        // `options.env`: the sessions' own variables (a HOME and PATH of the test's, as another machine's account has).
        ...(options.leanShell || options.env ? [`SetEnv ${Object.entries({...(options.leanShell ? {SHLVL: '1'} : {}), ...options.env}).map(([name, value]) => `${name}=${value}`).join(' ')}`] : []),
        ''
      ].join('\n')
    )
    config.push(
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      '  User root',
      `  IdentityFile ${join(dir, 'userkey')}`,
      '  IdentitiesOnly yes',
      '  StrictHostKeyChecking no',
      '  UserKnownHostsFile /dev/null',
      '  LogLevel ERROR',
      ''
    )
    const jobs = join(dir, `jobs-${alias}`)
    await mkdir(jobs, {recursive: true})
    const host = {
      alias,
      port,
      dir: jobs,
      async start() {
        await mkdir('/run/sshd', {recursive: true})
        const daemon = execa(sshdPath, ['-D', '-e', '-f', sshdConfig], {reject: false, stdin: 'ignore', buffer: false})
        daemons.set(alias, daemon)
        await listening(daemon, alias)
      },
      async stop() {
        const daemon = daemons.get(alias)
        daemons.delete(alias)
        if (!daemon?.pid) return
        // Every session sshd serves is a child of the listener: end them with it, as a host going dark would.
        const children = await execa('pgrep', ['-P', String(daemon.pid)], {reject: false})
        for (const pid of String(children.stdout).split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL')
        daemon.kill('SIGKILL')
        await daemon
      }
    }
    hosts.push(host)
  }
  await writeFile(join(dir, 'ssh_config'), config.join('\n'))
  for (const host of hosts) await host.start()
  return {
    config: join(dir, 'ssh_config'),
    hosts,
    async close() {
      for (const host of hosts) await host.stop()
      await rm(dir, {recursive: true, force: true})
    }
  }
}

/** sshd -D -e says `Server listening on 127.0.0.1 port N.` once it accepts connections. */
function listening(daemon, alias) {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (chunk) => {
      text += chunk.toString('utf8')
      if (!text.includes('Server listening')) return
      daemon.stderr?.off('data', onData)
      daemon.stderr?.resume()
      resolve()
    }
    daemon.stderr?.on('data', onData)
    void daemon.then((result) => reject(new Error(`sshd for ${alias} exited: ${text || String(result.stderr ?? '')}`)))
  })
}
