/** Whether an opencode config's text (a file, or OPENCODE_CONFIG_CONTENT) defines a `provider` block. */
export function opencodeConfigNamesProvider(text: string): boolean {
  return /"provider"\s*:/.test(text)
}
