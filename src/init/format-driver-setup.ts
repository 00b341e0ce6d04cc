import type {MergeDriverSetup} from './install-merge-driver.js'

/**
 * What `mdplan init --git` did, a line each: the plans it found, the
 * attributes lines, and the driver (repaired or kept, and why).
 */
export function formatDriverSetup(setup: MergeDriverSetup): string {
  const lines: string[] = []
  if (setup.found) {
    lines.push(
      setup.found.length === 0
        ? 'plans found: none tracked (no Markdown file with `## Agents` and `## Execution State`): covering plans/*.md'
        : `plans found: ${setup.found.join(', ')}`
    )
  }
  const attributes = setup.lines.length === 0 ? 'every plan found already has a merge driver' : setup.lines.join(', ')
  lines.push(`.gitattributes: ${setup.attributes === 'kept-other-driver' ? 'kept: another merge driver is named for a plan' : setup.attributes} (${attributes})`)
  const driver =
    setup.config === 'kept-other-driver'
      ? `kept: it runs another tool (${setup.driver}); run \`mdplan init --git --force\` to replace it`
      : `${setup.config}${setup.why ? `: ${setup.why}` : ''} (runs ${setup.driver} merge-driver; git merge-file when that cannot start)`
  lines.push(`git config merge.mdplan.driver: ${driver}`)
  return lines.join('\n') + '\n'
}
