import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Resets new connections and drops the open ones, as a server going down does. */
  cut(): Promise<void>
  /** Accepts connections again on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

/**
 * A TCP proxy in front of a real server (PostgreSQL, Redis), so that a test can take the
 * server away from the service and give it back, without touching the server itself.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  // While cut, the proxy keeps its port and resets every connection at once: a closed port
  // could be taken by another process on a busy machine, and a client would then hang on a
  // server that is not the one it asked for instead of being refused.
  let down = false
  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy()
      return
    }
    const upstream = connect(target.port, target.host)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  const port = address && typeof address === 'object' ? address.port : 0
  const dropAll = () => {
    for (const s of sockets) s.destroy()
  }
  return {
    port,
    cut: async () => {
      down = true
      dropAll()
    },
    restore: async () => {
      down = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll()
        server.close(() => resolve())
      }),
  }
}
