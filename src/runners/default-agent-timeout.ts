/**
 * How long one agent attempt may run when neither `--agent-timeout` nor the
 * front matter's `agent_timeout` says: long enough for real work on a large
 * change, short enough that a CLI stuck reconnecting (codex with no network
 * retries forever) does not hold a run overnight.
 */
export const defaultAgentTimeoutMs = 60 * 60_000
