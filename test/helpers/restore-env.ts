// The e2e files share a worker's modules (vitest `isolate: false`), and so its process.env: every file starts
// with the environment its worker started with, whatever the file before it set (a fake CLI's path, a git config).
const key = Symbol.for('mdplan.e2e.startEnv')
const store = globalThis as typeof globalThis & {[key]?: Record<string, string | undefined>}
const start = (store[key] ??= {...process.env})
for (const name of Object.keys(process.env)) if (!(name in start)) delete process.env[name]
Object.assign(process.env, start)
