import { closeSync, openSync, readSync } from 'node:fs'
import { Counter, type Registry } from 'prom-client'

/** The CPU time one thread has run, as Linux counts it. */
export interface ThreadCpu {
  /** The thread's CPU time so far, in ns. */
  readNs(): number
  close(): void
}

/**
 * The calling thread's CPU clock, read from the first field of /proc/thread-self/schedstat
 * (about 2 µs a read); undefined where that file does not exist. Opened by this thread, the
 * file keeps describing this thread whichever thread reads it later.
 */
export function openThreadCpu(): ThreadCpu | undefined {
  let fd: number
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r')
  } catch {
    return undefined
  }
  const buf = Buffer.alloc(64)
  return {
    readNs() {
      const n = readSync(fd, buf, 0, buf.length, 0)
      const end = buf.indexOf(0x20)
      return Number(buf.toString('latin1', 0, end < 0 || end > n ? n : end))
    },
    close: () => closeSync(fd),
  }
}

export interface ThreadCpuOptions {
  registry: Registry
  name: string
  help: string
}

/**
 * A counter of the CPU seconds the calling thread has run since it registered the counter.
 * The process's CPU counter adds every thread (the engine's, the pools'); this one tells what
 * an event loop's own work cost, so that a profile can say which thread a request's CPU went
 * to. Registered by several threads, the counters add up. Nothing is registered where the
 * thread's clock cannot be read.
 */
export function monitorThreadCpu(options: ThreadCpuOptions): { stop(): void } | undefined {
  const clock = openThreadCpu()
  if (!clock) return undefined
  let last = clock.readNs()
  new Counter({
    name: options.name,
    help: options.help,
    registers: [options.registry],
    collect() {
      const now = clock.readNs()
      this.inc((now - last) / 1e9)
      last = now
    },
  })
  return {
    stop() {
      options.registry.removeSingleMetric(options.name)
      clock.close()
    },
  }
}
