/**
 * One line for the tools claude refused under the agent's permission mode, from
 * the `permission_denials` of its `result` (in `-p` a tool the mode does not
 * grant is denied, not asked about, and the run still ends `is_error: false`):
 *
 *     claude denied Bash `npm test` (and 1 more) under permission mode acceptEdits: allow it with allowed_tools or choose another permission_mode
 *
 * Undefined when nothing was denied.
 */
export function claudePermissionDenials(result: Record<string, unknown> | undefined, permissionMode: string): string | undefined {
  const denials = Array.isArray(result?.permission_denials) ? (result.permission_denials as Array<Record<string, unknown>>) : []
  const first = denials[0]
  if (!first) return undefined
  const input = (first.tool_input ?? {}) as Record<string, unknown>
  const what = [input.command, input.file_path, input.path, input.url].find((value): value is string => typeof value === 'string')
  const tool = `${String(first.tool_name ?? 'a tool')}${what ? ` \`${what.replace(/\s+/g, ' ').slice(0, 80)}\`` : ''}`
  const more = denials.length > 1 ? ` (and ${denials.length - 1} more)` : ''
  return `claude denied ${tool}${more} under permission mode ${permissionMode}: allow it with allowed_tools or choose another permission_mode`
}
