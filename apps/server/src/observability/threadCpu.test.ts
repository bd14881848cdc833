import { Worker } from 'node:worker_threads'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { monitorThreadCpu } from './threadCpu'

/** Holds this thread until the process has run `ms` of CPU; answers the process's CPU milliseconds meanwhile. */
function spin(ms: number): number {
  const start = process.cpuUsage()
  for (;;) {
    const used = process.cpuUsage(start)
    if (used.user + used.system >= ms * 1000) return (used.user + used.system) / 1000
  }
}

/** Another thread of this process that runs `ms` of CPU and ends. */
function spinElsewhere(ms: number): Promise<void> {
  const source = `const end = Date.now() + ${ms}; while (Date.now() < end) {}`
  const worker = new Worker(source, { eval: true })
  return new Promise((resolve, reject) => worker.once('exit', () => resolve()).once('error', reject))
}

async function cpuMs(registry: Registry): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'test_thread_cpu_seconds_total')
  return Number(metric?.values[0]?.value) * 1000
}

describe('monitorThreadCpu', () => {
  let registry: Registry
  let monitor: ReturnType<typeof monitorThreadCpu>
  afterEach(() => monitor?.stop())

  it("counts this thread's CPU time, and not another thread's", async () => {
    registry = new Registry()
    monitor = monitorThreadCpu({ registry, name: 'test_thread_cpu_seconds_total', help: 'test' })
    expect(monitor).toBeDefined()
    const start = await cpuMs(registry)
    await spinElsewhere(150)
    const afterWorker = await cpuMs(registry)
    // Starting a worker costs this thread a little; the worker's 150 ms are not counted.
    expect(afterWorker - start).toBeLessThan(60)

    // The process's count also holds its other threads (GC, compiler), which run more when
    // the machine is busy, so this thread's part is most of it, never more than all of it.
    const processMs = spin(100)
    const afterSpin = await cpuMs(registry)
    expect(afterSpin - afterWorker).toBeGreaterThanOrEqual(50)
    expect(afterSpin - afterWorker).toBeLessThanOrEqual(processMs + 10)
  })

  it('unregisters on stop', async () => {
    registry = new Registry()
    monitor = monitorThreadCpu({ registry, name: 'test_thread_cpu_seconds_total', help: 'test' })
    monitor!.stop()
    monitor = undefined
    expect(await registry.getMetricsAsJSON()).toEqual([])
  })
})
