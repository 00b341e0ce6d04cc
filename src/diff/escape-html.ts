const entities: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;'}

/**
 * Text from a plan made inert for a Markdown comment: GitHub renders raw HTML
 * in a comment (`<b>`, `<img>`, `<details>`), so a note shows as written, not
 * as markup. Pure.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (char) => entities[char]!)
}
