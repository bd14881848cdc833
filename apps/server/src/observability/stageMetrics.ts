import { performance } from 'node:perf_hooks'
import { Counter, type Registry } from 'prom-client'

/** The stages a batch of events goes through on the storing side before it is inserted. */
export type StoringStage = 'projects' | 'transform' | 'groups' | 'persons'

/**
 * Times each stage of a batch before it is stored, so that `/_metrics` shows where the storing
 * side's time per event goes: the stage's wall time (its waits on PostgreSQL and plugins
 * included) and the main event loop's busy time meanwhile, which is its CPU on this thread while
 * the stage dominates the loop (Node 20 has no per-thread CPU clock). Divided by the events the
 * stage saw, each is a time per event.
 */
export interface StageMeter {
  time<T>(stage: StoringStage, events: number, work: () => Promise<T>): Promise<T>
}

export function createStageMeter(registry: Registry): StageMeter {
  const registers = [registry]
  const labelNames = ['stage'] as const
  const seconds = new Counter({
    name: 'burrow_storing_stage_seconds_total',
    help: 'Wall time of each stage before the insert, waits included, by stage',
    labelNames,
    registers,
  })
  const busy = new Counter({
    name: 'burrow_storing_stage_loop_busy_seconds_total',
    help: "The main event loop's busy time while each stage before the insert ran, by stage",
    labelNames,
    registers,
  })
  const events = new Counter({
    name: 'burrow_storing_stage_events_total',
    help: 'Events that went through each stage before the insert, by stage',
    labelNames,
    registers,
  })
  return {
    async time(stage, count, work) {
      const started = performance.now()
      const loop = performance.eventLoopUtilization()
      try {
        return await work()
      } finally {
        seconds.inc({ stage }, (performance.now() - started) / 1000)
        busy.inc({ stage }, performance.eventLoopUtilization(loop).active / 1000)
        events.inc({ stage }, count)
      }
    },
  }
}
