import { describe, expect, it } from 'vitest'
import { FairQueue } from './fairQueue'

const tenant = (organization: string, project: number) => ({ organization, project })

/** Who got a slot, in order, as the slots are given back one by one. */
async function order(queue: FairQueue, waiting: Array<[string, Promise<() => void>]>, first: Array<() => void>): Promise<string[]> {
  const served: string[] = []
  const pending = new Map(waiting)
  for (const [name, slot] of waiting) {
    void slot.then((release) => {
      served.push(name)
      pending.delete(name)
      queueMicrotask(release)
    })
  }
  for (const release of first) release()
  while (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 0))
  return served
}

describe('the fair queue of reader connections', () => {
  it('gives the next slot to the organization whose turn it is, not to whoever queued the most', async () => {
    const queue = new FairQueue({ slots: 1, perOrganization: 1 })
    const busy = await queue.acquire(tenant('b', 2))
    const waiting: Array<[string, Promise<() => void>]> = [
      ['b1', queue.acquire(tenant('b', 2))],
      ['b2', queue.acquire(tenant('b', 2))],
      ['b3', queue.acquire(tenant('b', 2))],
      ['a1', queue.acquire(tenant('a', 1))],
      ['a2', queue.acquire(tenant('a', 1))],
    ]
    expect(await order(queue, waiting, [busy])).toEqual(['b1', 'a1', 'b2', 'a2', 'b3'])
  })

  it("counts an organization's projects together: more projects get it no more turns", async () => {
    const queue = new FairQueue({ slots: 1, perOrganization: 1 })
    const busy = await queue.acquire(tenant('a', 1))
    const waiting: Array<[string, Promise<() => void>]> = [
      ['b-p1', queue.acquire(tenant('b', 1))],
      ['b-p2', queue.acquire(tenant('b', 2))],
      ['b-p3', queue.acquire(tenant('b', 3))],
      ['a', queue.acquire(tenant('a', 9))],
    ]
    expect(await order(queue, waiting, [busy])).toEqual(['b-p1', 'a', 'b-p2', 'b-p3'])
  })

  it('keeps a slot free for another organization while one holds its share', async () => {
    const queue = new FairQueue({ slots: 4, perOrganization: 2 })
    await queue.acquire(tenant('b', 1))
    await queue.acquire(tenant('b', 2))
    let third = false
    void queue.acquire(tenant('b', 3)).then(() => (third = true))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(third).toBe(false)
    // Another organization is served at once from the slots b may not take.
    await queue.acquire(tenant('a', 1))
    await queue.acquire(tenant('a', 1))
    expect(queue.queued).toBe(1)
  })

  it('takes a waiter whose caller gave up out of the queue, and the slot goes to the next', async () => {
    const queue = new FairQueue({ slots: 1, perOrganization: 1 })
    const busy = await queue.acquire(tenant('a', 1))
    const gaveUp = new AbortController()
    const abandoned = queue.acquire(tenant('b', 1), gaveUp.signal)
    const next = queue.acquire(tenant('c', 1))
    gaveUp.abort(new Error('the caller went away'))
    await expect(abandoned).rejects.toThrow('the caller went away')
    expect(queue.queued).toBe(1)
    busy()
    const release = await next
    release()
    release()
    // A slot given back twice counts once.
    await queue.acquire(tenant('d', 1))
    let more = false
    void queue.acquire(tenant('e', 1)).then(() => (more = true))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(more).toBe(false)
  })
})
