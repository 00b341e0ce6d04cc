/**
 * Whether `opencode auth list` (it exited 0) says that no provider can answer: 0 stored credentials and no
 * provider variable. An answer not in the shape we know is not held against it.
 */
export function opencodeNoProvider(stdout: string): boolean {
  const text = stdout.replace(/\u001b\[[0-9;]*m/g, '')
  const credentials = /(\d+)\s+credentials?\b/.exec(text)
  if (credentials === null) return false
  const variables = /(\d+)\s+environment variables?\b/.exec(text)
  return !(Number(credentials[1]) > 0 || (variables !== null && Number(variables[1]) > 0))
}
