import type pc from 'picocolors'

export type Colors = ReturnType<typeof pc.createColors>

/** Paint `text` in the colour of `status`, the same in every view. */
export function colorStatus(text: string, status: string, c: Colors): string {
  switch (status) {
    case 'completed':
      return c.green(text)
    case 'failed':
      return c.red(text)
    case 'needs_input':
    case 'awaiting_review':
      return c.yellow(text)
    case 'in_progress':
      return c.cyan(text)
    default:
      return c.dim(text)
  }
}
