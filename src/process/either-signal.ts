/** A signal that aborts when either does (undefined when neither is given). */
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal): AbortSignal
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b
  if (b === undefined || a === b) return a
  return AbortSignal.any([a, b])
}
