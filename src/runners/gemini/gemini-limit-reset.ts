import {parseLimitReset, resetInstant} from '../parse-limit-reset.js'

/**
 * When gemini's quota lets it go on, from its error (the result's or stream's error, stderr's error object):
 * the Gemini API's `Please retry in 37.540230958s.` or its RetryInfo `retryDelay: "37s"`, the two gemini-cli
 * 0.61 itself reads (`classifyGoogleError`). A daily quota says neither: undefined.
 */
export function geminiLimitReset(text: string, now: number, zone: string): number | undefined {
  return resetInstant(parseLimitReset(text, now, zone), now)
}
