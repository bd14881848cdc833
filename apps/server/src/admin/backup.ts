import { chown, copyFile, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { connectClickHouse, type ClickHouse } from '@burrow/clickhouse'
import type { Config } from '@burrow/config'
import { copyServerPassword, type Pool } from '@burrow/postgres'
import { listSegments, markRestored } from '@burrow/spool'
import { AdminCommandRefused } from './adminSocket'
import { isEmptyDirectory } from '../dataDir'

/** Written last into a backup directory: a directory without it is not a complete backup. */
const MANIFEST = 'burrow-backup.json'

export interface BackupManifest {
  format: 1
  created_at: string
  /** What the backup holds: the embedded engines' data and the spool. */
  postgres: boolean
  clickhouse: boolean
  spool: boolean
  /** What it does not hold, and how to back that up (a server's data is the server's to back up). */
  not_included: string[]
}

/** A backup or restore refused for its directories: the message says why. */
export class BackupError extends AdminCommandRefused {
  override name = 'BackupError'
}

/** Directories of a PostgreSQL data directory whose contents a base backup leaves out (PostgreSQL's own list). */
const POSTGRES_TRANSIENT = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
])
const POSTGRES_SKIPPED_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map'])

/**
 * Copies a directory tree, keeping each entry's mode and, when run as root, its owner (the
 * embedded PostgreSQL's files belong to its own OS user). Files that disappear while it runs
 * (spool segments stored and removed meanwhile) are skipped.
 */
async function copyTree(from: string, to: string, keep: (relative: string, isDirectory: boolean) => boolean, relative = ''): Promise<void> {
  const source = await lstat(from)
  await mkdir(to, { recursive: true, mode: source.mode & 0o7777 })
  if (process.getuid?.() === 0) await chown(to, source.uid, source.gid)
  for (const name of await readdir(from)) {
    const child = path.join(relative, name)
    const stat = await lstat(path.join(from, name)).catch(ignoreMissing)
    if (!stat || !keep(child, stat.isDirectory())) continue
    if (stat.isDirectory()) await copyTree(path.join(from, name), path.join(to, name), keep, child)
    else if (stat.isFile()) {
      const copied = await copyFile(path.join(from, name), path.join(to, name)).then(
        () => true,
        (err: unknown) => ignoreMissing(err) ?? false,
      )
      if (copied && process.getuid?.() === 0) await chown(path.join(to, name), stat.uid, stat.gid)
    }
  }
}

function ignoreMissing(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
  throw err
}

/**
 * A base backup of the embedded PostgreSQL while it runs (PostgreSQL's low-level backup API;
 * the embedded server ships no pg_dump or pg_basebackup): the files copied between
 * pg_backup_start and pg_backup_stop, the label it answers, then the WAL written meanwhile,
 * which the restored server replays at its first start to reach a consistent state.
 */
async function backupEmbeddedPostgres(sql: Pool, dataDir: string, to: string): Promise<void> {
  const databaseDir = path.join(dataDir, 'postgres')
  const target = path.join(to, 'postgres')
  const session = await sql.reserve()
  let started = false
  try {
    await session`SELECT pg_backup_start('burrow backup', true)`
    started = true
    await copyTree(databaseDir, target, (relative, isDirectory) => {
      const [top, ...below] = relative.split(path.sep)
      if (below.length > 0 && POSTGRES_TRANSIENT.has(top!)) return false
      return isDirectory || (below.length > 0 ? true : !POSTGRES_SKIPPED_FILES.has(top!))
    })
    const [stop] = await session<
      Array<{ labelfile: string; spcmapfile: string | null }>
    >`SELECT labelfile, spcmapfile FROM pg_backup_stop(false)`
    started = false
    const owner = await lstat(databaseDir)
    const writeOwned = async (name: string, text: string) => {
      await writeFile(path.join(target, name), text, { mode: 0o600 })
      if (process.getuid?.() === 0) await chown(path.join(target, name), owner.uid, owner.gid)
    }
    await writeOwned('backup_label', stop!.labelfile)
    if (stop!.spcmapfile) await writeOwned('tablespace_map', stop!.spcmapfile)
    await copyTree(path.join(databaseDir, 'pg_wal'), path.join(target, 'pg_wal'), () => true)
    // The server's password is in its data, so the restored server needs it; not its port or owner,
    // which name this running server.
    await copyServerPassword(path.join(dataDir, 'postgres.json'), path.join(to, 'postgres.json'))
  } finally {
    if (started) await session`SELECT pg_backup_stop(false)`.catch(() => undefined)
    session.release()
  }
}

/**
 * The spool's lanes: each lane's position first, then its segments (the active one may end in a
 * torn frame, which the reader skips as after a crash).
 */
async function backupSpool(dataDir: string, to: string): Promise<void> {
  const spool = path.join(dataDir, 'spool')
  if (!(await lstat(spool).catch(ignoreMissing))) return
  const copyLane = async (from: string, target: string) => {
    await mkdir(target, { recursive: true })
    const names = await readdir(from)
    for (const name of names.filter((n) => n === 'position.json'))
      await copyFile(path.join(from, name), path.join(target, name)).catch(ignoreMissing)
    for (const name of names.filter((n) => n.endsWith('.seg')).sort())
      await copyFile(path.join(from, name), path.join(target, name)).catch(ignoreMissing)
    for (const name of names.filter((n) => /^lane-\d+$/.test(n))) await copyLane(path.join(from, name), path.join(target, name))
  }
  await copyLane(spool, path.join(to, 'spool'))
}

/** `File('...')` of a path, quoted as a ClickHouse string literal. */
const fileOf = (dir: string) => `File('${dir.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}')`

export interface BackupSources {
  config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL' | 'CLICKHOUSE_URL'>
  sql: Pool
  ch: ClickHouse
  /** Runs the work while the running service's spool consumers store nothing (absent when the service is stopped). */
  whileNotStoring?: <T>(work: () => Promise<T>) => Promise<T>
}

/**
 * Backs up a service, running or not, into `to` (a new or empty directory): the embedded
 * PostgreSQL (a base backup), then the spool and the embedded ClickHouse (BACKUP DATABASE)
 * while the spool's consumers store nothing. Every event acknowledged before the backup began
 * is in it, once: in ClickHouse's copy if it was stored before the pause, else in the spool's
 * from its position on. (ClickHouse's deduplication log is not in a backup, so an overlap
 * between the two copies would be stored twice by the restored service.)
 */
export async function backupService(sources: BackupSources, to: string): Promise<BackupManifest> {
  const target = path.resolve(to)
  if (!(await isEmptyDirectory(target))) throw new BackupError(`${target} is not empty: back up into a new or empty directory`)
  await mkdir(target, { recursive: true })
  const { config } = sources
  const notIncluded: string[] = []
  if (config.DATABASE_URL) notIncluded.push('PostgreSQL is a server (DATABASE_URL): back it up with pg_dump')
  else await backupEmbeddedPostgres(sources.sql, path.resolve(config.DATA_DIR), target)
  if (config.CLICKHOUSE_URL) notIncluded.push('ClickHouse is a server (CLICKHOUSE_URL): back it up with its BACKUP command')
  const whileNotStoring = sources.whileNotStoring ?? ((work) => work())
  await whileNotStoring(async () => {
    await backupSpool(path.resolve(config.DATA_DIR), target)
    if (!config.CLICKHOUSE_URL)
      await sources.ch.writer.command({ query: `BACKUP DATABASE default TO ${fileOf(path.join(target, 'clickhouse'))}` })
  })
  const manifest: BackupManifest = {
    format: 1,
    created_at: new Date().toISOString(),
    postgres: !config.DATABASE_URL,
    clickhouse: !config.CLICKHOUSE_URL,
    spool: true,
    not_included: notIncluded,
  }
  await writeFile(path.join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

/**
 * Restores a backup into an empty DATA_DIR, with the service stopped: the PostgreSQL files (the
 * server replays their WAL at its first start, on a server of its own), the spool (stored at the
 * first start; checked against what ClickHouse holds when the backup does not hold ClickHouse),
 * and ClickHouse (RESTORE DATABASE into a new embedded engine).
 */
export async function restoreService(config: Pick<Config, 'DATA_DIR'>, from: string): Promise<BackupManifest> {
  const source = path.resolve(from)
  const dataDir = path.resolve(config.DATA_DIR)
  const manifest = await readManifest(source)
  if (!(await isEmptyDirectory(dataDir))) throw new BackupError(`DATA_DIR ${dataDir} is not empty: restore into a new or empty directory`)
  await mkdir(dataDir, { recursive: true, mode: 0o755 })
  if (manifest.postgres) {
    await copyTree(path.join(source, 'postgres'), path.join(dataDir, 'postgres'), () => true)
    // The password alone (a backup of an earlier release also holds the original's port and pid):
    // the restored directory starts a server of its own rather than reaching the original's.
    await copyServerPassword(path.join(source, 'postgres.json'), path.join(dataDir, 'postgres.json'))
  }
  if (await lstat(path.join(source, 'spool')).catch(ignoreMissing)) {
    await copyTree(path.join(source, 'spool'), path.join(dataDir, 'spool'), () => true)
    if (!manifest.clickhouse) await markRestoredLanes(path.join(dataDir, 'spool'))
  }
  if (manifest.clickhouse) {
    const ch = await connectClickHouse({ dataDir })
    try {
      await ch.writer.command({ query: `RESTORE DATABASE default FROM ${fileOf(path.join(source, 'clickhouse'))}` })
    } finally {
      await ch.close()
    }
  }
  return manifest
}

/**
 * A backup of an instance whose ClickHouse is a server holds its spool alone, and that instance
 * may have stored the spool's rows in the server since (it went on running, or was stopped with
 * SIGTERM, which stores them). Each restored lane is marked so that the restored instance looks
 * up which of its events are stored before inserting them, and inserts only the others.
 */
async function markRestoredLanes(spool: string): Promise<void> {
  const lanes = [spool, ...(await readdir(spool)).filter((name) => /^lane-\d+$/.test(name)).map((name) => path.join(spool, name))]
  for (const lane of lanes) {
    const last = (await listSegments(lane)).at(-1)
    if (last) await markRestored(lane, last.seq + 1)
  }
}

async function readManifest(dir: string): Promise<BackupManifest> {
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as BackupManifest
    if (manifest.format !== 1)
      throw new BackupError(`${dir} holds a backup of format ${String(manifest.format)}, which this release does not read`)
    return manifest
  } catch (err) {
    if (err instanceof BackupError) throw err
    throw new BackupError(`${dir} holds no complete backup (no readable ${MANIFEST})`)
  }
}
