import { describe, expect, it } from 'vitest'
import { WindowedMax } from './windowedMax'

describe('a maximum over a sliding window', () => {
  it('reads the same however often it is read, and forgets a value once the window has passed it', () => {
    let now = 1_000_000
    const max = new WindowedMax(60_000, 12, () => now)
    max.record(0.2)
    now += 10_000
    max.record(0.05)
    expect(max.read()).toBe(0.2)
    expect(max.read()).toBe(0.2)
    now += 45_000
    expect(max.read()).toBe(0.2)
    now += 6_000
    expect(max.read()).toBe(0.05)
    now += 10_000
    expect(max.read()).toBe(0)
  })

  it('keeps the largest of the values recorded close together', () => {
    let now = 0
    const max = new WindowedMax(1_000, 10, () => now)
    for (const value of [3, 9, 4]) {
      max.record(value)
      now += 1
    }
    expect(max.read()).toBe(9)
  })
})
