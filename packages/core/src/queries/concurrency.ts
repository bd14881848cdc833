import { ApiProblem } from '@burrow/contracts'

/**
 * Slots per project: at most `limit` queries of one project run at once in this process. A
 * query waits up to `waitMs` for a slot, then is refused with DRF's throttled answer.
 */
export class ProjectSlots {
  private readonly running = new Map<number, number>()
  private readonly waiting = new Map<number, Array<() => void>>()

  constructor(
    private readonly limit: () => number,
    private readonly waitMs: () => number,
  ) {}

  async run<T>(projectId: number, work: () => Promise<T>): Promise<T> {
    await this.acquire(projectId)
    try {
      return await work()
    } finally {
      this.release(projectId)
    }
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
        reject(
          new ApiProblem(
            'throttled',
            `Request was throttled: this project already runs ${this.limit()} queries. Expected available in ${Math.ceil(this.waitMs() / 1000)} seconds.`,
          ),
        )
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
