import { createServer } from 'node:net'

/** Another process listens on the port the service was to serve. */
export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is already served by another process: stop it, or set PORT to a free port`)
    this.name = 'PortInUseError'
  }
}

/**
 * Throws PortInUseError when another process listens on host:port. The service listens with
 * SO_REUSEPORT (so that its capture threads share the port), which would let it join a port
 * another process serves without an error, and the kernel would then split the connections
 * between the two. A plain socket without SO_REUSEPORT cannot bind a port anyone listens on,
 * so binding one and closing it again tells whether the port is free; the service's own
 * threads listen only after this. Port 0 asks the kernel for a free port: nothing to check.
 * A process binding the port between this check and the service's listen is not caught.
 */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return
  await new Promise<void>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port) : err))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
  })
}
