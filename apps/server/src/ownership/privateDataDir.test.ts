import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createDataDir, makeDataDirPrivate } from './privateDataDir'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-private-'))
chmodSync(root, 0o755)
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0
const newDir = () => path.join(root, `data-${++dirs}`)
const modeOf = (file: string) => statSync(file).mode & 0o7777

/** A DATA_DIR as earlier releases left it: everything readable by everyone. */
function openDataDir(): string {
  const dir = newDir()
  mkdirSync(path.join(dir, 'spool', 'lane-0'), { recursive: true, mode: 0o755 })
  mkdirSync(path.join(dir, 'clickhouse'), { mode: 0o755 })
  writeFileSync(path.join(dir, 'spool', 'lane-0', '000000000001.seg'), 'events', { mode: 0o644 })
  writeFileSync(path.join(dir, 'burrow.lock'), '1\n', { mode: 0o644 })
  writeFileSync(path.join(dir, 'postgres.json'), '{}', { mode: 0o600 })
  symlinkSync(root, path.join(dir, 'elsewhere'))
  for (const p of [dir, path.join(dir, 'spool'), path.join(dir, 'spool', 'lane-0'), path.join(dir, 'clickhouse')]) chmodSync(p, 0o755)
  return dir
}

describe('createDataDir', () => {
  it('creates DATA_DIR for its owner alone, and missing parents as the umask makes them', () => {
    const dir = path.join(newDir(), 'nested', 'data')
    createDataDir(dir)
    expect(modeOf(dir)).toBe(0o700)
    expect(modeOf(path.dirname(dir)) & 0o055).toBe(0o055)
    createDataDir(dir)
    expect(modeOf(dir)).toBe(0o700)
  })
})

describe('makeDataDirPrivate', () => {
  it('takes every permission of group and others from DATA_DIR and each entry in it, and says what it changed', () => {
    const dir = openDataDir()
    const changes = makeDataDirPrivate(dir, { enterableByOthers: false })
    expect(modeOf(dir)).toBe(0o700)
    expect(modeOf(path.join(dir, 'spool'))).toBe(0o700)
    expect(modeOf(path.join(dir, 'clickhouse'))).toBe(0o700)
    expect(modeOf(path.join(dir, 'burrow.lock'))).toBe(0o600)
    // Deeper files are out of reach through their private parents, and left as they are.
    expect(modeOf(path.join(dir, 'spool', 'lane-0', '000000000001.seg'))).toBe(0o644)
    // A link is not followed: what it names is not DATA_DIR's.
    expect(lstatSync(path.join(dir, 'elsewhere')).isSymbolicLink()).toBe(true)
    expect(modeOf(root)).toBe(0o755)
    expect(changes.map((c) => [path.relative(dir, c.path), c.from, c.to]).sort()).toEqual(
      [
        ['', 0o755, 0o700],
        ['burrow.lock', 0o644, 0o600],
        ['clickhouse', 0o755, 0o700],
        ['spool', 0o755, 0o700],
      ].sort(),
    )
    expect(makeDataDirPrivate(dir, { enterableByOthers: false })).toEqual([])
  })

  it('closes the directory a DATA_DIR given as a link leads to', () => {
    const target = openDataDir()
    const link = newDir()
    symlinkSync(target, link)
    makeDataDirPrivate(link, { enterableByOthers: false })
    expect(modeOf(target)).toBe(0o700)
    expect(modeOf(path.join(target, 'spool'))).toBe(0o700)
  })

  it('lets others enter DATA_DIR, never list it, when the embedded PostgreSQL runs as another user', () => {
    const dir = openDataDir()
    makeDataDirPrivate(dir, { enterableByOthers: true })
    expect(modeOf(dir)).toBe(0o711)
    expect(modeOf(path.join(dir, 'spool'))).toBe(0o700)
    const fresh = newDir()
    expect(makeDataDirPrivate(fresh, { enterableByOthers: true })).toEqual([{ path: fresh, from: 0o700, to: 0o711 }])
  })
})
