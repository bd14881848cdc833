import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Resets new connections and drops the open ones, as a server going down does. */
  cut(): Promise<void>
  /**
   * Stops forwarding, in both directions, without closing anything: new connections are
   * accepted and never answered, as a server stopped with SIGSTOP or cut off by the network behaves.
   */
  freeze(): Promise<void>
  /** Accepts connections again on the same port, and forwards again what a freeze held. */
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
  let frozen = false
  // Sockets accepted while frozen, connected upstream at the restore.
  const held = new Set<Socket>()
  const pairs = new Set<[Socket, Socket]>()
  const forward = (client: Socket) => {
    const upstream = connect(target.port, target.host)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    for (const s of pair) {
      sockets.add(s)
      s.on('close', () => {
        sockets.delete(s)
        pairs.delete(pair)
      })
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  }
  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy()
      return
    }
    if (frozen) {
      // Not read, so what the client sends waits in the kernel's buffers, as on a stopped server.
      client.pause()
      held.add(client)
      sockets.add(client)
      client.on('error', () => client.destroy())
      client.on('close', () => {
        held.delete(client)
        sockets.delete(client)
      })
      return
    }
    forward(client)
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
    freeze: async () => {
      frozen = true
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.pause()
        upstream.pause()
      }
    },
    restore: async () => {
      down = false
      if (!frozen) return
      frozen = false
      for (const [client, upstream] of pairs) client.pipe(upstream).pipe(client)
      for (const client of held) {
        held.delete(client)
        sockets.delete(client)
        client.removeAllListeners('close')
        client.removeAllListeners('error')
        if (!client.destroyed) forward(client)
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll()
        server.close(() => resolve())
      }),
  }
}
