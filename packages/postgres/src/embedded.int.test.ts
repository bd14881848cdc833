import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import postgres from 'postgres'
import { afterAll, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded'

const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-embedded-pg-'))
chmodSync(dataDir, 0o700)
let server: EmbeddedServer | undefined

afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
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
