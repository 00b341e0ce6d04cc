const placeholders = /\{(prompt_file|prompt|agent_id|agent|plan)\}/

/** Whether `text` (part of a script) names a placeholder or a tainted variable. */
export function reachesPrompt(text: string, isTainted: (name: string) => boolean): boolean {
  return placeholders.test(text) || [...text.matchAll(/\$?\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])\}?/g)].some((ref) => isTainted(ref[1]!))
}

/**
 * What a `${…}` expansion (its body, between the braces) does with prompt
 * text: whether its value carries it, and a problem when bash would evaluate
 * it: as a variable name (`${!x}`), or in a subscript or an offset
 * (`${a[$1]}`, `${x:$1}`), which are arithmetic, and arithmetic runs `$(…)`
 * inside `a[…]`.
 */
export function bracedTaint(body: string, isTainted: (name: string) => boolean): {tainted: boolean; problem?: string} {
  const refs = (text: string): boolean => placeholders.test(text) || [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])/g)].some((ref) => isTainted(ref[1]!))
  const parts = /^(!?)(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(.*)$/s.exec(body)
  if (!parts) return refs(body) ? {tainted: true, problem: `\`\${${body}}\` puts prompt text where bash evaluates it`} : {tainted: false}
  const [, indirect, , name, rest] = parts as unknown as [string, string, string, string, string]
  const nameTainted = isTainted(name)
  if (indirect && nameTainted) return {tainted: true, problem: `\`\${!${name}}\` uses prompt text as a variable name, which bash evaluates (\`a[$(…)]\`)`}
  const arithmetic = rest.startsWith('[') || /^:[^-=?+]/.test(rest)
  if (arithmetic && refs(rest)) return {tainted: true, problem: `\`\${${body}}\` puts prompt text in a subscript or an offset, which bash evaluates as arithmetic`}
  return {tainted: nameTainted || refs(rest)}
}
