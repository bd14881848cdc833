import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { monitorEventLoopBusy } from './eventLoopBusy'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Holds the thread until the process has used `ms` of CPU (this thread, nearly all of it). */
function spin(ms: number): void {
  const start = process.cpuUsage()
  for (;;) {
    const used = process.cpuUsage(start)
    if (used.user + used.system >= ms * 1000) return
  }
}

/** Holds the thread for `ms` without using the CPU, as a thread that waits for a core would. */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

async function busyMaxMs(registry: Registry): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'test_loop_busy_max_seconds')
  return Number(metric?.values[0]?.value) * 1000
}

describe('monitorEventLoopBusy', () => {
  const registry = new Registry()
  let monitor: ReturnType<typeof monitorEventLoopBusy>
  afterEach(() => monitor?.stop())

  it('counts the CPU time work held the loop, and not time the thread spent off the CPU', async () => {
    monitor = monitorEventLoopBusy({ registry, name: 'test_loop_busy_max_seconds', help: 'test', sampleMs: 1 })
    expect(monitor).toBeDefined()
    await sleep(20)
    block(60)
    await sleep(20)
    // The loop was held as long, by wall time, but its own work took next to no CPU.
    expect(await busyMaxMs(registry)).toBeLessThan(20)

    spin(60)
    await sleep(20)
    expect(await busyMaxMs(registry)).toBeGreaterThanOrEqual(50)
  })

  it('keeps its maximum for the window whoever scrapes it: a second scrape reads what the first did', async () => {
    monitor = monitorEventLoopBusy({ registry, name: 'test_loop_busy_max_seconds', help: 'test', sampleMs: 1, windowMs: 60_000 })
    await sleep(20)
    spin(60)
    await sleep(20)
    const first = await busyMaxMs(registry)
    expect(first).toBeGreaterThanOrEqual(50)
    await sleep(50)
    expect(await busyMaxMs(registry)).toBe(first)
  })
})
