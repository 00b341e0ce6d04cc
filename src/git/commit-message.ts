/** `<plan title> · <agent ID>: <name>`, the message of every commit mdplan makes for an agent. */
export function commitMessage(planTitle: string, agent: {id: string; name: string}): string {
  return `${planTitle} · ${agent.id}: ${agent.name}`
}
