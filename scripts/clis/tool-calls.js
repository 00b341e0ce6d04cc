// A script's tool calls are abstract (write a file, edit a file, run a command);
// each client names its own tools and their arguments. The names come from the
// `tools` list of the client's own request, so a client that renames a tool
// shows up as a clear "no tool for …" error, not a silent wrong call.

const families = {
  // Claude Code (Anthropic Messages API)
  Write: (call) => call.write && {file_path: call.write.path, content: call.write.content},
  Read: (call) => call.read && {file_path: call.read},
  Edit: (call) => call.edit && {file_path: call.edit.path, old_string: call.edit.old, new_string: call.edit.new},
  Bash: (call) => call.shell && {command: call.shell, description: 'scripted command'},
  // Gemini CLI
  write_file: (call) => call.write && {file_path: call.write.path, content: call.write.content},
  read_file: (call) => call.read && {file_path: call.read},
  replace: (call) => call.edit && {file_path: call.edit.path, old_string: call.edit.old, new_string: call.edit.new, instruction: 'scripted edit'},
  run_shell_command: (call) => call.shell && {command: call.shell, description: 'scripted command'},
  // opencode
  write: (call) => call.write && {filePath: call.write.path, content: call.write.content},
  read: (call) => call.read && {filePath: call.read},
  edit: (call) => call.edit && {filePath: call.edit.path, oldString: call.edit.old, newString: call.edit.new},
  bash: (call) => call.shell && {command: call.shell, description: 'scripted command'},
  // codex: commands through its shell tool, files through apply_patch
  shell: (call) => call.shell && {command: ['bash', '-lc', call.shell]},
  exec_command: (call) => (call.shell ? {cmd: call.shell} : call.read ? {cmd: `cat '${call.read}'`} : undefined),
  shell_command: (call) => call.shell && {command: call.shell}
}

/** The client's tool names, from an Anthropic, Responses, Chat or Gemini request body. */
export function toolNames(body) {
  return (body.tools ?? []).flatMap((tool) => (tool.functionDeclarations ? tool.functionDeclarations.map((declaration) => declaration.name) : [tool.name ?? tool.function?.name ?? tool.type])).filter(Boolean)
}

/** `[{name, input, kind}]` for this client, or throws naming the call no tool of the client can make. */
export function toolCalls(calls, names) {
  return calls.map((call) => {
    if ((call.write || call.edit) && names.includes('apply_patch')) return {name: 'apply_patch', kind: 'custom', input: applyPatch(call)}
    // codex without an apply_patch tool (a model it has no metadata for): the same patch through its
    // command tool, which codex recognises and applies itself (a `file_change`, under its sandbox).
    if ((call.write || call.edit) && names.includes('exec_command')) return {name: 'exec_command', kind: 'function', input: {cmd: `apply_patch <<'PATCH'\n${applyPatch(call)}PATCH`}}
    for (const name of names) {
      const input = families[name]?.(call)
      if (input) return {name, input, kind: 'function'}
    }
    throw new Error(`no tool for ${JSON.stringify(call)} among ${names.join(', ')}`)
  })
}

/** codex's apply_patch format: add a whole file, or replace one line's text. */
function applyPatch(call) {
  const path = (call.write ?? call.edit).path
  if (call.write) {
    const lines = call.write.content.replace(/\n$/, '').split('\n')
    return ['*** Begin Patch', `*** Add File: ${path}`, ...lines.map((line) => `+${line}`), '*** End Patch', ''].join('\n')
  }
  return ['*** Begin Patch', `*** Update File: ${path}`, '@@', `-${call.edit.old}`, `+${call.edit.new}`, '*** End Patch', ''].join('\n')
}
