import type { SlotStore } from '@burrow/cache'
import { ApiProblem } from '@burrow/contracts'

/** How often a query waiting for a slot another server holds looks again. */
const SHARED_POLL_MS = 50

/**
 * Slots per project: at most `limit` queries of one project run at once, in this process (first
 * come, first served) and, with a shared store, across every server. A query waits up to
 * `waitMs` for a slot, then is refused with DRF's throttled answer. A shared slot is leased for
 * `leaseMs`, so that a server that dies mid-query frees it.
 */
export class ProjectSlots {
  private readonly running = new Map<number, number>()
  private readonly waiting = new Map<number, Array<() => void>>()

  constructor(
    private readonly limit: () => number,
    private readonly waitMs: () => number,
    private readonly shared?: { store: SlotStore; leaseMs: () => number },
  ) {}

  async run<T>(projectId: number, work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.waitMs()
    await this.acquire(projectId)
    let token: string | undefined
    try {
      token = await this.acquireShared(projectId, deadline)
      return await work()
    } finally {
      if (token !== undefined) await this.shared!.store.release(`query:${projectId}`, token)
      this.release(projectId)
    }
  }

  /** A slot of the project across servers, waited for until `deadline`; none without a shared store. */
  private async acquireShared(projectId: number, deadline: number): Promise<string | undefined> {
    if (!this.shared) return undefined
    for (;;) {
      const token = await this.shared.store.tryAcquire(`query:${projectId}`, this.limit(), this.shared.leaseMs())
      if (token !== undefined) return token
      if (Date.now() + SHARED_POLL_MS > deadline) throw this.throttled()
      await new Promise((resolve) => setTimeout(resolve, SHARED_POLL_MS))
    }
  }

  private throttled(): ApiProblem {
    return new ApiProblem(
      'throttled',
      `Request was throttled: this project already runs ${this.limit()} queries. Expected available in ${Math.ceil(this.waitMs() / 1000)} seconds.`,
    )
  }

  private async acquire(projectId: number): Promise<void> {
    const running = this.running.get(projectId) ?? 0
    if (running < this.limit()) {
      this.running.set(projectId, running + 1)
      return
    }
    const queue = this.waiting.get(projectId) ?? []
    this.waiting.set(projectId, queue)
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        const i = queue.indexOf(wake)
        if (i >= 0) queue.splice(i, 1)
        reject(this.throttled())
      }, this.waitMs())
      queue.push(wake)
    })
  }

  private release(projectId: number): void {
    const next = this.waiting.get(projectId)?.shift()
    // The slot passes straight to the next query waiting, so that none overtakes it.
    if (next) return next()
    const running = (this.running.get(projectId) ?? 1) - 1
    if (running <= 0) this.running.delete(projectId)
    else this.running.set(projectId, running)
  }
}
