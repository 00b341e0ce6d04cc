/** Agents running at once when neither `--concurrency` nor the front matter's `concurrency` says. */
export const defaultConcurrency = 4

/** Attempts per agent before it stays failed, when neither `--max-attempts` nor the front matter says. */
export const defaultMaxAttempts = 3
