import type { Config } from '@burrow/config'
import type { Registry } from 'prom-client'
import { createDiskReserve, watchDiskReserve } from '../disk'
import type { Logger } from '../logger'
import type { ReadinessCheck } from '../observability/probes'
import { registerRoomGauges } from '../observability/serviceMetrics'
import type { Teardown } from './teardown'

/**
 * The room left on DATA_DIR's disk against its reserve: a readiness check (critical: capture is
 * about to refuse), its gauges, and a log line each way when the free space crosses the reserve.
 */
export function startDiskReserve(
  config: Config,
  logger: Logger,
  registry: Registry,
  readinessChecks: ReadinessCheck[],
  teardown: Teardown,
): ReturnType<typeof createDiskReserve> {
  const disk = createDiskReserve(config)
  const diskWatch = watchDiskReserve(disk, logger)
  teardown.atTheEnd(async () => diskWatch.stop())
  readinessChecks.push({
    name: 'disk',
    critical: true,
    check: () => {
      const { ok, freeBytes, totalBytes, reserveBytes, error } = disk.room()
      return {
        ok,
        error: ok ? error : `free space ${freeBytes} bytes is below the reserve of ${reserveBytes} bytes`,
        detail: { free_bytes: freeBytes, total_bytes: totalBytes, reserve_bytes: reserveBytes },
      }
    },
  })
  registerRoomGauges(registry, { disk, reserve: () => diskWatch.state(), spoolMaxBytes: config.SPOOL_MAX_BYTES })
  return disk
}
