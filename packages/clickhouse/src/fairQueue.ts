import type { Tenant } from './tenant'

export interface FairQueueOptions {
  /** Statements that run at once, all tenants together. */
  slots: number
  /**
   * Of those, at most this many for one organization: an organization cannot take every slot,
   * however many projects (or queries) it starts, so another's statement always finds one soon.
   */
  perOrganization: number
}

interface Waiter {
  grant(): void
}

/**
 * Turns at a bounded number of slots, shared fairly: organizations take turns (round robin among
 * those waiting and under their share), then the projects of an organization take turns, then
 * a project's statements go first come, first served. A waiter whose signal aborts leaves the queue.
 */
export class FairQueue {
  private free: number
  private readonly running = new Map<string, number>()
  /** Waiters by organization, then project; the maps' order is the rotation (who was served last goes to the end). */
  private readonly waiting = new Map<string, Map<number, Waiter[]>>()

  constructor(private readonly options: FairQueueOptions) {
    if (options.slots < 1 || options.perOrganization < 1) throw new Error('a fair queue needs at least one slot, and one per organization')
    this.free = options.slots
  }

  /** Resolves with the function that gives the slot back once the tenant's turn has come. */
  acquire(tenant: Tenant, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted()
    const { organization, project } = tenant
    if (this.free > 0 && this.runningOf(organization) < this.options.perOrganization && !this.waiting.has(organization)) {
      this.take(organization)
      return Promise.resolve(this.releaser(organization))
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(this.releaser(organization))
        },
      }
      const onAbort = () => {
        this.remove(organization, project, waiter)
        reject(signal!.reason as Error)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      let projects = this.waiting.get(organization)
      if (!projects) this.waiting.set(organization, (projects = new Map<number, Waiter[]>()))
      let queue = projects.get(project)
      if (!queue) projects.set(project, (queue = []))
      queue.push(waiter)
      this.dispatch()
    })
  }

  /** Statements waiting for a slot. */
  get queued(): number {
    let n = 0
    for (const projects of this.waiting.values()) for (const queue of projects.values()) n += queue.length
    return n
  }

  private runningOf(organization: string): number {
    return this.running.get(organization) ?? 0
  }

  private take(organization: string): void {
    this.free--
    this.running.set(organization, this.runningOf(organization) + 1)
  }

  private releaser(organization: string): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      this.free++
      const left = this.runningOf(organization) - 1
      if (left > 0) this.running.set(organization, left)
      else this.running.delete(organization)
      this.dispatch()
    }
  }

  private dispatch(): void {
    while (this.free > 0) {
      const next = this.nextWaiter()
      if (!next) return
      this.take(next.organization)
      next.waiter.grant()
    }
  }

  /** The next organization's turn (moved to the end of the rotation), and in it the next project's. */
  private nextWaiter(): { organization: string; waiter: Waiter } | undefined {
    for (const [organization, projects] of this.waiting) {
      if (this.runningOf(organization) >= this.options.perOrganization) continue
      const [project, queue] = projects.entries().next().value!
      const waiter = queue.shift()!
      projects.delete(project)
      if (queue.length > 0) projects.set(project, queue)
      this.waiting.delete(organization)
      if (projects.size > 0) this.waiting.set(organization, projects)
      return { organization, waiter }
    }
    return undefined
  }

  private remove(organization: string, project: number, waiter: Waiter): void {
    const projects = this.waiting.get(organization)
    const queue = projects?.get(project)
    if (!projects || !queue) return
    const i = queue.indexOf(waiter)
    if (i >= 0) queue.splice(i, 1)
    if (queue.length === 0) projects.delete(project)
    if (projects.size === 0) this.waiting.delete(organization)
  }
}
