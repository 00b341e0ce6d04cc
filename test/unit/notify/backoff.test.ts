import {describe, expect, it} from 'vitest'
import {backoffCapMs, backoffDelay} from '../../../src/notify/backoff.js'
import {sendResultOf} from '../../../src/notify/send-result.js'

describe('the backoff schedule', () => {
  it('doubles from 1 s up to 5 min, half of each delay drawn at random', () => {
    const low = [1, 2, 3, 4, 5, 6, 9, 10, 20].map((tries) => backoffDelay(tries, 0))
    const high = [1, 2, 3, 4, 5, 6, 9, 10, 20].map((tries) => backoffDelay(tries, 0.999999))
    expect(low).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 128_000, 150_000, 150_000])
    expect(high).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 256_000, 300_000, 300_000])
    expect(backoffDelay(3, 0.5)).toBe(3000)
  })

  it('waits at least what a Retry-After asked, within the cap', () => {
    expect(backoffDelay(1, 0, 30_000)).toBe(30_000)
    expect(backoffDelay(1, 0, 3_600_000)).toBe(backoffCapMs)
    expect(backoffDelay(6, 0, 2000)).toBe(16_000)
  })
})

describe('what an answer means', () => {
  it('2xx is delivered', () => {
    expect(sendResultOf(200, '')).toEqual({kind: 'ok'})
    expect(sendResultOf(204, '')).toEqual({kind: 'ok'})
  })

  it('5xx, 408 and 429 are tried again, with a Retry-After in seconds', () => {
    expect(sendResultOf(500, 'oops')).toEqual({kind: 'retry', detail: 'HTTP 500: oops'})
    expect(sendResultOf(503, '', '7')).toEqual({kind: 'retry', detail: 'HTTP 503', retryAfterMs: 7000})
    expect(sendResultOf(408, '')).toMatchObject({kind: 'retry'})
    expect(sendResultOf(429, '', 'Wed, 21 Oct 2015 07:28:00 GMT')).toEqual({kind: 'retry', detail: 'HTTP 429'})
  })

  it('any other 4xx, and a redirect, fail for good, with the start of the answer', () => {
    expect(sendResultOf(404, 'no such\nhook')).toEqual({kind: 'permanent', detail: 'HTTP 404: no such hook'})
    expect(sendResultOf(401, '')).toMatchObject({kind: 'permanent'})
    expect(sendResultOf(301, '')).toMatchObject({kind: 'permanent'})
    expect((sendResultOf(400, 'x'.repeat(1000)) as {detail: string}).detail).toHaveLength('HTTP 400: '.length + 200)
  })
})
