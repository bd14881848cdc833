import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import postgres from 'postgres'
import { afterAll, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded'

const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-embedded-pg-'))
chmodSync(dataDir, 0o700)
const copyDir = mkdtempSync(path.join(tmpdir(), 'burrow-embedded-pg-copy-'))
chmodSync(copyDir, 0o711)
let server: EmbeddedServer | undefined
let copy: EmbeddedServer | undefined

afterAll(async () => {
  await copy?.stop()
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(copyDir, { recursive: true, force: true })
})

async function selectOne(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [row] = await sql<{ one: number }[]>`select 1 as one`
    return row!.one
  } finally {
    await sql.end()
  }
}

it('starts in a DATA_DIR of mode 700 only once the postgres user may enter it, and says so before initdb when root', async () => {
  if (process.getuid?.() === 0) {
    await expect(startEmbeddedPostgres(dataDir, () => {})).rejects.toThrow(`Let it through with \`chmod o+x ${dataDir}\``)
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false)
    chmodSync(dataDir, 0o711)
  }
  server = await startEmbeddedPostgres(dataDir, () => {})
  expect(await selectOne(server.url)).toBe(1)
})

it('starts a server of its own in a DATA_DIR whose record was copied from another one, whose server and owner still run', async () => {
  expect(server).toBeDefined()
  // The record names the first server, owned by this very process: as a copied or restored DATA_DIR finds it.
  copyFileSync(path.join(dataDir, 'postgres.json'), path.join(copyDir, 'postgres.json'))
  const logged: string[] = []
  copy = await startEmbeddedPostgres(copyDir, (msg) => logged.push(msg))
  expect(new URL(copy.url).port).not.toBe(new URL(server!.url).port)
  expect(logged.join('\n')).toContain('not this DATA_DIR: starting its own')
  const sql = postgres(copy.url, { max: 1, onnotice: () => {} })
  try {
    const [row] = await sql<{ data_directory: string }[]>`SHOW data_directory`
    expect(row!.data_directory).toBe(path.join(copyDir, 'postgres'))
  } finally {
    await sql.end()
  }
})
