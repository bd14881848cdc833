// How the embedded engine (chDB) takes a body of encoded rows.
//
// chDB's own raw insert hands the engine the statement and the rows as one query text, and the
// engine passes over that text byte by byte before it reads a row (seen in `perf`): rows given
// that way cost about twice the CPU to read as rows read from a file. So the rows go into a file
// under the data directory, which the statement names (`FROM INFILE`). `npm run
// bench:engine-insert` measures both; the figures are in docs/performance.md.
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { EncodedFormat, InsertSettings } from './encodedRows'

/** What runs a statement on the writer's chDB session (the connection's `.chdb` extension). */
export interface ChdbStatements {
  queryAsync(query: string): Promise<unknown>
}

export interface EncodedInsert {
  table: string
  format: EncodedFormat
  body: Buffer
  settings: InsertSettings
}

/** Where a connection writes the bodies it inserts: its own names in a directory shared with the data. */
export interface InsertBodies {
  dir: string
  /** Begins the name of each of this connection's files, and of no other's. */
  prefix: string
  written: number
}

/** The prefixes of this process's open connections: any other file in the directory is a remnant. */
const livePrefixes = new Set<string>()

/**
 * Opens the directory that holds the bodies being inserted and empties it of what a process
 * that died between writing a body and removing it left. Files are named after the connection,
 * not the process: a restarted container often has the same process id as the one before it.
 */
export async function openInsertBodies(dataDir: string): Promise<InsertBodies> {
  const dir = path.join(dataDir, 'insert-bodies')
  await mkdir(dir, { recursive: true })
  const prefix = `${randomUUID()}-`
  livePrefixes.add(prefix)
  const isLive = (name: string) => [...livePrefixes].some((live) => name.startsWith(live))
  for (const name of await readdir(dir)) if (!isLive(name)) await rm(path.join(dir, name), { force: true })
  return { dir, prefix, written: 0 }
}

export function closeInsertBodies(bodies: InsertBodies): void {
  livePrefixes.delete(bodies.prefix)
}

/** Inserts the body's rows; the settings go in the statement's SETTINGS clause, so they end with it. */
export async function insertFromFile(chdb: ChdbStatements, bodies: InsertBodies, insert: EncodedInsert): Promise<void> {
  if (insert.body.length === 0) return
  const file = path.join(bodies.dir, `${bodies.prefix}${++bodies.written}`)
  await writeFile(file, insert.body)
  try {
    await chdb.queryAsync(insertStatement(insert.table, file, insert.format, insert.settings))
  } finally {
    await rm(file, { force: true })
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export function insertStatement(table: string, file: string, format: EncodedFormat, settings: InsertSettings): string {
  if (!IDENTIFIER.test(table)) throw new Error(`not a table name: ${JSON.stringify(table)}`)
  const clauses = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name)) throw new Error(`not a setting name: ${JSON.stringify(name)}`)
    return `${name} = ${typeof value === 'number' ? String(value) : stringLiteral(value)}`
  })
  const settingsClause = clauses.length > 0 ? ` SETTINGS ${clauses.join(', ')}` : ''
  return `INSERT INTO ${table} FROM INFILE ${stringLiteral(file)}${settingsClause} FORMAT ${format}`
}

function stringLiteral(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}
