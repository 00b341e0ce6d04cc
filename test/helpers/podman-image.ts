import {existsSync} from 'node:fs'
import {cp, mkdir, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {execa} from 'execa'

/** What every test image holds: a shell, git and the tools mdplan's job script and preflight call. */
export const imageTools = ['sh', 'dash', 'git', 'cat', 'mv', 'rm', 'mkdir', 'rmdir', 'xargs', 'env', 'sleep', 'date', 'tail', 'ls', 'cp', 'touch']

/**
 * A rootfs of this machine's own binaries (`tools`) and their libraries, built under `dir` and imported into
 * podman as `image`: no registry needed. Resolves to undefined, or to the line that says why it could not.
 */
export async function buildImage(dir: string, podman: string, image: string, tools: string[], env: Record<string, string>): Promise<string | undefined> {
  const rootfs = join(dir, 'rootfs')
  const copy = async (file: string) => {
    if (existsSync(join(rootfs, file))) return
    await mkdir(dirname(join(rootfs, file)), {recursive: true})
    await cp(file, join(rootfs, file), {dereference: true})
  }
  for (const tool of tools) {
    const path = (await execa('sh', ['-c', `command -v ${tool}`], {reject: false})).stdout
    if (!path.startsWith('/')) return `\`${tool}\` is not on this machine`
    await copy(path)
    const libraries = (await execa('ldd', [path], {reject: false})).stdout.match(/\/\S+/g) ?? []
    for (const library of libraries) await copy(library)
  }
  // /bin/sh is where run.sh and the preflight look; the machine's /bin may be a symlink to usr/bin.
  if (!existsSync(join(rootfs, 'bin'))) await execa('ln', ['-s', 'usr/bin', join(rootfs, 'bin')])
  await mkdir(join(rootfs, 'tmp'), {recursive: true})
  await mkdir(join(rootfs, 'etc'), {recursive: true})
  await writeFile(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n')
  const imported = await execa('sh', ['-c', `tar -C '${rootfs}' -c . | '${podman}' import -q - '${image}'`], {reject: false, env})
  await rm(rootfs, {recursive: true, force: true})
  return imported.exitCode === 0 ? undefined : String(imported.stderr).trim().split('\n').at(-1)
}
