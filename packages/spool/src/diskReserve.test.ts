import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DiskReserve } from './diskReserve'

const MiB = 1024 * 1024

describe('DiskReserve', () => {
  it('has room while the free space is at least the reserve, and none below it', () => {
    let free = 600 * MiB
    const reserve = new DiskReserve({
      dir: '/',
      reserveBytes: 512 * MiB,
      cacheMs: 0,
      statfs: () => ({ bavail: free / 4096, bsize: 4096, blocks: (1024 * MiB) / 4096 }),
    })
    expect(reserve.room()).toEqual({ ok: true, freeBytes: 600 * MiB, totalBytes: 1024 * MiB, reserveBytes: 512 * MiB })
    free = 511 * MiB
    expect(reserve.hasRoom()).toBe(false)
    free = 512 * MiB
    expect(reserve.hasRoom()).toBe(true)
  })

  it('reuses a reading for cacheMs, so that capture does not ask the kernel on every request', () => {
    let calls = 0
    const reserve = new DiskReserve({
      dir: '/',
      reserveBytes: 0,
      cacheMs: 60_000,
      statfs: () => ({ bavail: ++calls, bsize: 1, blocks: 10 }),
    })
    reserve.hasRoom()
    reserve.hasRoom()
    expect(reserve.room().freeBytes).toBe(1)
    expect(calls).toBe(1)
  })

  it('reads the real file system of a directory', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'burrow-disk-'))
    const room = new DiskReserve({ dir, reserveBytes: 1 }).room()
    expect(room.freeBytes).toBeGreaterThan(0)
    expect(room.totalBytes).toBeGreaterThanOrEqual(room.freeBytes)
    expect(room.ok).toBe(true)
    expect(new DiskReserve({ dir, reserveBytes: Number.MAX_SAFE_INTEGER }).hasRoom()).toBe(false)
  })

  it('does not refuse events when the file system cannot be read, and says why', () => {
    const room = new DiskReserve({ dir: '/no/such/dir/at/all', reserveBytes: 1 }).room()
    expect(room.ok).toBe(true)
    expect(room.error).toMatch(/ENOENT/)
  })
})
