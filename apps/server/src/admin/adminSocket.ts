import { existsSync } from 'node:fs'
import { chmod, rm } from 'node:fs/promises'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import path from 'node:path'
import type { DeadLetterFilter } from '@burrow/ingestion'

/**
 * A local HTTP endpoint on a unix socket in DATA_DIR, for the CLI's commands that need the
 * running service: the embedded ClickHouse allows one process per data directory, so while
 * the service runs the CLI asks it. Only the owner of DATA_DIR can connect (mode 0600).
 */
export const adminSocketPath = (dataDir: string) => path.join(path.resolve(dataDir), 'admin.sock')

export interface AdminCommands {
  dlqList(filter: DeadLetterFilter): Promise<unknown>
  dlqReplay(filter: DeadLetterFilter): Promise<unknown>
  dlqPurge(filter: DeadLetterFilter): Promise<unknown>
  /** Backs up the service's data into the directory `to` while it runs. */
  backup(to: string): Promise<unknown>
}

/** A refusal the CLI shows as it is (a bad argument, a directory that is not empty), answered with status 400. */
export class AdminCommandRefused extends Error {
  override name = 'AdminCommandRefused'
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? (JSON.parse(text) as Record<string, unknown>) : {}
}

function filterFrom(body: Record<string, unknown>): DeadLetterFilter {
  return {
    teamId: typeof body.project === 'number' ? body.project : undefined,
    ids: Array.isArray(body.ids) && body.ids.length > 0 ? body.ids.map(String) : undefined,
    limit: typeof body.limit === 'number' ? body.limit : undefined,
  }
}

export async function startAdminSocket(
  dataDir: string,
  commands: AdminCommands,
  log: (msg: string) => void,
): Promise<{ close(): Promise<void> }> {
  const socket = adminSocketPath(dataDir)
  // A socket file left by a crashed run would make listen fail.
  if (existsSync(socket)) await rm(socket, { force: true })
  const server: Server = createServer((req, res) => {
    const answer = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    void (async () => {
      try {
        const body = await readJson(req)
        if (req.method === 'POST' && req.url === '/dlq/list') return answer(200, await commands.dlqList(filterFrom(body)))
        if (req.method === 'POST' && req.url === '/dlq/replay') return answer(200, await commands.dlqReplay(filterFrom(body)))
        if (req.method === 'POST' && req.url === '/dlq/purge') return answer(200, await commands.dlqPurge(filterFrom(body)))
        if (req.method === 'POST' && req.url === '/backup' && typeof body.to === 'string')
          return answer(200, await commands.backup(body.to))
        answer(404, { error: `no command ${req.method} ${req.url}` })
      } catch (err) {
        if (err instanceof AdminCommandRefused) return answer(400, { error: err.message })
        log(`admin command failed: ${String(err)}`)
        answer(500, { error: String(err) })
      }
    })()
  })
  // A backup takes as long as copying the data does.
  server.requestTimeout = 0
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socket, resolve)
  })
  await chmod(socket, 0o600)
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }).then(() => rm(socket, { force: true })),
  }
}

/** Sends a command to the running service; undefined when no service answers on the socket. */
export async function sendAdminCommand(dataDir: string, command: string, body: unknown): Promise<unknown> {
  const socket = adminSocketPath(dataDir)
  if (!existsSync(socket)) return undefined
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path: command, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
        if (res.statusCode === 200) resolve(payload)
        else {
          const message = (payload as { error?: string }).error ?? `status ${res.statusCode}`
          reject(res.statusCode === 400 ? new AdminCommandRefused(message) : new Error(message))
        }
      })
    })
    // A socket file nobody listens on (the service was killed): open the storage directly.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? resolve(undefined) : reject(err),
    )
    req.end(JSON.stringify(body))
  })
}
