import { DiskReserve } from '@burrow/spool'
import { describe, expect, it } from 'vitest'
import { watchDiskReserve } from './disk'

const MiB = 1024 * 1024

describe('the disk reserve watch', () => {
  it('writes one line each time the free space crosses the reserve, either way, and counts the crossings', () => {
    let free = 600 * MiB
    let now = 0
    const disk = new DiskReserve({
      dir: '/',
      reserveBytes: 512 * MiB,
      cacheMs: 0,
      statfs: () => ({ bavail: free / 4096, bsize: 4096, blocks: (1024 * MiB) / 4096 }),
    })
    const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = []
    const watch = watchDiskReserve(
      disk,
      {
        error: (fields, msg) => lines.push({ level: 'error', fields, msg }),
        warn: (fields, msg) => lines.push({ level: 'warn', fields, msg }),
      },
      { intervalMs: 60_000, now: () => now },
    )
    try {
      // Above the reserve at the start: nothing to say.
      watch.check()
      expect(lines).toEqual([])
      expect(watch.state()).toEqual({ below: false, wentBelow: 0, cameBack: 0 })

      free = 500 * MiB
      for (let i = 0; i < 20; i++) {
        now += 250
        watch.check()
      }
      expect(lines).toEqual([
        {
          level: 'error',
          fields: { free_bytes: 500 * MiB, reserve_bytes: 512 * MiB, total_bytes: 1024 * MiB },
          msg: "disk: free space on DATA_DIR's file system is below the reserve (500.0 MiB free, reserve 512.0 MiB): capture answers 503 to new events until space is freed",
        },
      ])
      expect(watch.state()).toEqual({ below: true, wentBelow: 1, cameBack: 0 })

      free = 700 * MiB
      now += 250
      watch.check()
      watch.check()
      expect(lines[1]).toEqual({
        level: 'warn',
        fields: { free_bytes: 700 * MiB, reserve_bytes: 512 * MiB, total_bytes: 1024 * MiB, below_ms: 5000 },
        msg: "disk: free space on DATA_DIR's file system is above the reserve again (700.0 MiB free, reserve 512.0 MiB) after 5.0 s: capture takes new events again",
      })
      free = 100 * MiB
      watch.check()
      expect(lines).toHaveLength(3)
      expect(watch.state()).toEqual({ below: true, wentBelow: 2, cameBack: 1 })
    } finally {
      watch.stop()
    }
  })
})
