import { createSlotStore } from '@burrow/cache'
import { ApiProblem } from '@burrow/contracts'
import { describe, expect, it } from 'vitest'
import { ProjectSlots } from './concurrency'

const gate = () => {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

describe('ProjectSlots', () => {
  it('runs at most the limit of one project at once and starts the next as one ends', async () => {
    const slots = new ProjectSlots(
      () => 2,
      () => 1000,
    )
    const gates = [gate(), gate(), gate()]
    const started: number[] = []
    const runs = gates.map((g, i) =>
      slots.run(7, async () => {
        started.push(i)
        await g.opened
        return i
      }),
    )
    await new Promise((r) => setTimeout(r, 10))
    expect(started).toEqual([0, 1])
    gates[0]!.open()
    await runs[0]
    await new Promise((r) => setTimeout(r, 10))
    expect(started).toEqual([0, 1, 2])
    gates[1]!.open()
    gates[2]!.open()
    expect(await Promise.all(runs)).toEqual([0, 1, 2])
  })

  it('lets other projects run while one is full', async () => {
    const slots = new ProjectSlots(
      () => 1,
      () => 1000,
    )
    const held = gate()
    const first = slots.run(1, () => held.opened)
    expect(await slots.run(2, () => Promise.resolve('other'))).toBe('other')
    held.open()
    await first
  })

  it('refuses with a 429 a query that waited too long for a slot', async () => {
    const slots = new ProjectSlots(
      () => 1,
      () => 20,
    )
    const held = gate()
    const first = slots.run(1, () => held.opened)
    const refused = await slots.run(1, () => Promise.resolve()).catch((err: unknown) => err)
    expect(refused).toBeInstanceOf(ApiProblem)
    expect((refused as ApiProblem).status).toBe(429)
    held.open()
    await first
    // The refused query left no slot taken.
    expect(await slots.run(1, () => Promise.resolve('after'))).toBe('after')
  })

  it('counts the queries of every server sharing a slot store against one limit', async () => {
    // Two servers' slots over one store (Redis in a deployment; the memory store stands in).
    const shared = { store: createSlotStore(undefined), leaseMs: () => 60_000 }
    const one = new ProjectSlots(
      () => 1,
      () => 300,
      shared,
    )
    const two = new ProjectSlots(
      () => 1,
      () => 300,
      shared,
    )
    const running = gate()
    const first = one.run(7, () => running.opened)
    await new Promise((r) => setTimeout(r, 10))
    const refused = await two.run(7, () => Promise.resolve('ran')).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ApiProblem)
    expect((refused as ApiProblem).status).toBe(429)
    // Once the first is done, the other server's query runs; it waits for the slot meanwhile.
    const waiting = two.run(7, () => Promise.resolve('ran'))
    await new Promise((r) => setTimeout(r, 60))
    running.open()
    await first
    expect(await waiting).toBe('ran')
  })
})
