import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '@burrow/config'
import { dataDirectoryProblem } from '@burrow/postgres'

/** Where the embedded engines keep their data under DATA_DIR: evidence that the service ran there. */
const markers = (dataDir: string) => ({
  postgres: path.join(dataDir, 'postgres', 'PG_VERSION'),
  clickhouse: path.join(dataDir, 'clickhouse', 'metadata'),
})

/**
 * Why the CLI should not open DATA_DIR, or undefined. A command run with a mistyped DATA_DIR
 * would otherwise create empty embedded databases there and fail on a missing table; with
 * servers (DATABASE_URL, CLICKHOUSE_URL) the directory holds nothing the command needs.
 */
export function serviceDataProblem(config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL' | 'CLICKHOUSE_URL'>): string | undefined {
  const dir = path.resolve(config.DATA_DIR)
  const found = markers(dir)
  const missing = [
    ...(config.DATABASE_URL || existsSync(found.postgres) ? [] : [`no embedded PostgreSQL (${path.dirname(found.postgres)})`]),
    ...(config.CLICKHOUSE_URL || existsSync(found.clickhouse) ? [] : [`no embedded ClickHouse (${path.dirname(found.clickhouse)})`]),
  ]
  if (missing.length === 0) return undefined
  return (
    `DATA_DIR ${dir} holds no data of the service: ${missing.join(', ')}. ` +
    `Set DATA_DIR to the directory the service runs with (or DATABASE_URL and CLICKHOUSE_URL to its servers); ` +
    `a new service creates its databases at its first start.`
  )
}

/** Whether a directory is missing or empty, as a restore's destination must be. */
export async function isEmptyDirectory(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw err
  }
}

/** The service refuses DATA_DIR: the message says why and what to do. */
export class DataDirRefused extends Error {
  override name = 'DataDirRefused'
}

/**
 * Why the service could not use DATA_DIR, found before anything is created there, so that a
 * refused start leaves nothing behind (a mistyped path would otherwise stay, created, with a
 * lock file in it): the embedded PostgreSQL's user must be able to reach its data directory.
 */
export async function dataDirProblem(config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL'>): Promise<string | undefined> {
  if (config.DATABASE_URL) return undefined
  return dataDirectoryProblem(path.join(path.resolve(config.DATA_DIR), 'postgres'))
}
