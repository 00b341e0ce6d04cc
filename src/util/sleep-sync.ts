/**
 * Block the thread for `ms`: for the few waits that must not let other
 * JavaScript run meanwhile (the store's steps between reading and renaming).
 */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
