/**
 * Linux refuses one argv element over 128 KiB (MAX_ARG_STRLEN) with E2BIG, and
 * all of argv and the environment share about 2 MiB. Prompts above this many
 * bytes go through stdin instead (each built-in runner's CLI reads it there),
 * with room left for the flags around them.
 */
export const argvPromptLimit = 96 * 1024

/** Whether a prompt is too large to pass as an argument. */
export function promptViaStdin(prompt: string): boolean {
  return Buffer.byteLength(prompt, 'utf8') > argvPromptLimit
}
