// What each provider answers when an account's quota is exhausted, with the
// reset time, in the form the real CLI reads into its own usage-limit message
// (what was read in each CLI to find it: test/fixtures/limits/README.md).

/**
 * The quota answer for `api` with the account's reset at `resetAt` (ms since the epoch), as
 * {status, headers, body}.
 */
export function quotaAnswer(api, resetAt, now = Date.now()) {
  const seconds = Math.max(1, Math.ceil((resetAt - now) / 1000))
  const epoch = Math.ceil(resetAt / 1000)
  if (api === 'anthropic') {
    // claude 2.1.330 reads a 429's unified-limiter headers (`c3a`): status rejected, the claim that ran out
    // and its reset in epoch seconds, and says `You've hit your 5-hour limit · resets 3:07pm (UTC)`.
    return {
      status: 429,
      headers: {
        'anthropic-ratelimit-unified-status': 'rejected',
        'anthropic-ratelimit-unified-reset': String(epoch),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        'anthropic-ratelimit-unified-5h-status': 'rejected',
        'anthropic-ratelimit-unified-5h-reset': String(epoch),
        'anthropic-ratelimit-unified-5h-utilization': '1.0',
        'retry-after': String(seconds)
      },
      body: {type: 'error', error: {type: 'rate_limit_error', message: 'This request would exceed your account\'s rate limit. Please try again later.'}}
    }
  }
  if (api === 'gemini') {
    // The Gemini API's quota error: RESOURCE_EXHAUSTED, `Please retry in …s.` and a RetryInfo detail.
    return {
      status: 429,
      headers: {},
      body: {
        error: {
          code: 429,
          message: `You exceeded your current quota, please check your plan and billing details. Please retry in ${seconds}.0s.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {'@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'}]},
            {'@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s`}
          ]
        }
      }
    }
  }
  if (api === 'responses') {
    // codex-rs: a 429 whose error type is `usage_limit_reached` is its UsageLimitReachedError, with the reset
    // from `resets_at` (epoch seconds) or `resets_in_seconds`.
    return {
      status: 429,
      headers: {'x-codex-primary-used-percent': '100', 'x-codex-primary-window-minutes': '300', 'x-codex-primary-reset-after-seconds': String(seconds), 'x-codex-primary-reset-at': String(epoch)},
      body: {error: {type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: epoch, resets_in_seconds: seconds}}
    }
  }
  // OpenAI-compatible chat (opencode's AI SDK provider): a 429 with `retry-after`.
  return {
    status: 429,
    headers: {'retry-after': String(seconds)},
    body: {error: {message: 'You exceeded your current quota. Please try again later.', type: 'insufficient_quota', code: 'insufficient_quota'}}
  }
}
