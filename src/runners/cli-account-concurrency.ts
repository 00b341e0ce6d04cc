/**
 * The four agent CLIs' default cap per account (a login or key on one host): twice mdplan's default
 * concurrency, so a plan run as it comes is never held by it, while a plan of 40 agents at `-j40` starts 8
 * at a time on one login instead of spending its quota window 40 sessions at once (docs/limits.md, "Accounts").
 */
export const cliAccountConcurrency = 8
