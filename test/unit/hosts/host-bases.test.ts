import {describe, expect, it} from 'vitest'
import {hostBases} from '../../../src/hosts/host-bases.js'

describe('hostBases: what of a base a job carries to a host', () => {
  it('ships the whole history until the host holds a base, then what it lacks, then nothing', () => {
    const bases = hostBases()
    expect(bases.shipping('b1')).toBe('full')
    bases.learn(['b1'])
    expect(bases.shipping('b1')).toBe('none')
    expect(bases.shipping('b2')).toEqual({not: ['b1']})
    bases.learn(['b2'])
    expect(bases.shipping('b3')).toEqual({not: ['b2', 'b1']})
    bases.forget()
    expect(bases.shipping('b2')).toBe('full')
  })

  it('lets one first submit go while the host holds nothing; the rest wait for its answer', async () => {
    const bases = hostBases()
    expect(await bases.turn()).toBe(true)
    let second: boolean | undefined
    const waiting = bases.turn().then((turn) => (second = turn))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(second).toBeUndefined()
    bases.learn(['b1'])
    await waiting
    expect(second).toBe(false)
    expect(await bases.turn()).toBe(false)
  })

  it('a first submit that failed hands the turn to the next, which ships the whole history', async () => {
    const bases = hostBases()
    expect(await bases.turn()).toBe(true)
    const next = bases.turn()
    bases.release()
    expect(await next).toBe(true)
    expect(bases.shipping('b1')).toBe('full')
  })

  it('keeps the newest 64 bases it knows, newest first', () => {
    const bases = hostBases()
    for (let index = 0; index < 70; index++) bases.learn([`b${index}`])
    const shipping = bases.shipping('new')
    expect(shipping).not.toBe('full')
    expect(typeof shipping === 'object' && shipping.not).toHaveLength(64)
    expect(typeof shipping === 'object' && shipping.not[0]).toBe('b69')
  })
})
