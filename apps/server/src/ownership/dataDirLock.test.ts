import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DataDirInUseError, lockDataDir } from './dataDirLock'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-lock-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0
const newDir = () => path.join(root, `data-${++dirs}`)

describe('lockDataDir', () => {
  it('creates the directory, records the owner, and refuses a second holder naming it until released', () => {
    const dir = newDir()
    const lock = lockDataDir(dir)
    expect(readFileSync(path.join(dir, 'burrow.lock'), 'utf8')).toBe(`${process.pid}\n`)
    // flock belongs to an open file, so a second opening conflicts even within one process.
    let refusal: unknown
    try {
      lockDataDir(dir)
    } catch (err) {
      refusal = err
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError)
    expect((refusal as Error).message).toBe(
      `DATA_DIR ${dir} is in use by another Burrow process (pid ${process.pid}): stop it first, or give this one a DATA_DIR of its own`,
    )
    // The refusal left the owner's record alone.
    expect(readFileSync(path.join(dir, 'burrow.lock'), 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
    lockDataDir(path.join(dir, '.')).release()
  })

  it('takes a directory whose lock file names a process that is gone: only the kernel lock counts', () => {
    const dir = newDir()
    lockDataDir(dir).release()
    writeFileSync(path.join(dir, 'burrow.lock'), '999999999\n')
    const lock = lockDataDir(dir)
    expect(readFileSync(path.join(dir, 'burrow.lock'), 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
  })
})
