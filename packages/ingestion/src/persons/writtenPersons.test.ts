import { describe, expect, it } from 'vitest'
import { WrittenPersons } from './writtenPersons'

const at = (start = 0) => {
  const clock = { ms: start, now: () => clock.ms }
  return clock
}

describe('what a server remembers of the persons it wrote', () => {
  it('answers a person’s properties as last remembered, per project', () => {
    const memory = new WrittenPersons({ maxEntries: 10, maxAgeMs: 1000 })
    const watch = memory.watch()
    memory.remember(watch, 1, 7, { plan: 'free' })
    memory.remember(watch, 1, 7, { plan: 'pro' })
    expect(memory.get(1, 7)).toEqual({ plan: 'pro' })
    expect(memory.get(2, 7)).toBeUndefined()
  })

  it('forgets the least recently used person first, a read counting as a use', () => {
    const memory = new WrittenPersons({ maxEntries: 2, maxAgeMs: 1000 })
    const watch = memory.watch()
    memory.remember(watch, 1, 1, { n: 1 })
    memory.remember(watch, 1, 2, { n: 2 })
    memory.get(1, 1)
    memory.remember(watch, 1, 3, { n: 3 })
    expect(memory.size).toBe(2)
    expect(memory.get(1, 2)).toBeUndefined()
    expect(memory.get(1, 1)).toEqual({ n: 1 })
  })

  it('believes an entry no longer than its age bound', () => {
    const clock = at()
    const memory = new WrittenPersons({ maxEntries: 10, maxAgeMs: 1000, now: clock.now })
    memory.remember(memory.watch(), 1, 7, { plan: 'pro' })
    clock.ms = 1000
    expect(memory.get(1, 7)).toEqual({ plan: 'pro' })
    clock.ms = 1001
    expect(memory.get(1, 7)).toBeUndefined()
  })

  it('does not remember what a statement read of a person someone wrote while it was in flight', () => {
    const memory = new WrittenPersons({ maxEntries: 10, maxAgeMs: 1000 })
    const mine = memory.watch()
    const other = memory.watch()
    memory.forget(1, [7], other)
    memory.remember(mine, 1, 7, { plan: 'old' })
    expect(memory.get(1, 7)).toBeUndefined()
    // The writer's own answer is the newest: it is remembered.
    memory.remember(other, 1, 7, { plan: 'new' })
    expect(memory.get(1, 7)).toEqual({ plan: 'new' })
    // Once its watch ended, a statement remembers nothing more.
    memory.end(other)
    memory.remember(other, 1, 8, { plan: 'late' })
    expect(memory.get(1, 8)).toBeUndefined()
  })

  it('forgets everything, in flight included, when invalidations may have been missed', () => {
    const memory = new WrittenPersons({ maxEntries: 10, maxAgeMs: 1000 })
    const watch = memory.watch()
    memory.remember(watch, 1, 7, { plan: 'pro' })
    memory.clear()
    expect(memory.get(1, 7)).toBeUndefined()
    memory.remember(watch, 1, 8, { plan: 'pro' })
    expect(memory.get(1, 8)).toBeUndefined()
  })
})
