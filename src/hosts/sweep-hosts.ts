import type {RuntimeContext} from './runtime-context.js'

/**
 * Remove this plan's jobs no `in_progress` row names (`keep`) on every host that may hold one (the ledger's,
 * and `names`), except a host known not to answer: its leftovers stay in the ledger. Resolves to what is
 * said of the hosts that keep them.
 */
export async function sweepHosts(context: RuntimeContext, keep: ReadonlySet<string>, names: Iterable<string>): Promise<string[]> {
  const {ledger} = context
  const messages: string[] = []
  const stay = (name: string, answer: string): void => {
    const left = ledger.keys(name).filter((key) => !keep.has(key))
    if (left.length > 0) messages.push(`host ${name} ${answer}: ${left.length === 1 ? 'a job' : `${left.length} jobs`} of this plan stay${left.length === 1 ? 's' : ''} there (${left.join(', ')}) until a run or \`mdplan clean\` reaches it`)
  }
  await Promise.all(
    [...new Set([...ledger.pending(), ...names])].map(async (name) => {
      if (!context.specOf(name)) return
      // A host already known not to answer is not waited for: what it holds stays in the ledger.
      if (context.silent.has(name)) return stay(name, 'does not answer')
      const at = new Date().toISOString()
      const listed = await context.host(name).list(context.ownPrefix)
      if (!listed) {
        context.unheard(name)
        return stay(name, 'did not answer')
      }
      context.heard(name)
      await removeLeft(context, name, listed, keep, at)
    })
  )
  return messages
}

/** Remove what a host's listing holds of this plan's that is not kept, and record what is left there. */
async function removeLeft(context: RuntimeContext, name: string, listed: string[], keep: ReadonlySet<string>, at: string): Promise<void> {
  const {ledger, own} = context
  const handled = [...context.older].filter(([, on]) => on === name).map(([key]) => key)
  const gone = [...new Set([...listed.filter(own), ...handled])].filter((key) => !keep.has(key))
  if (gone.length === 0) return ledger.listed(name, listed.filter(own), at)
  const removed = await context.host(name).cancel(gone)
  for (const key of gone) context.older.delete(key)
  // What is left: the listing less what the host confirmed removing, else as it says once the removal is done
  // (a host that went away meanwhile keeps them all).
  const after = removed === true ? listed.filter((key) => !gone.includes(key)) : await context.host(name).list(context.ownPrefix)
  if (after) ledger.listed(name, after.filter(own), at)
}
