// Reference (c) of the ingestion benchmark: the bare uWebSockets.js handler of baseline (b),
// except that it answers {"status":1} only once the request's body is durable, written by the
// service's own spool writer (group commit, O_DSYNC segments filled with zeros ahead of use).
// It parses nothing and stores nothing else: what acknowledging after the disk costs by itself.
// Usage: durableUws.ts <dataDir>; prints its port, then serves until killed.
import { mkdirSync } from 'node:fs'
import { createSpoolMetrics, SpoolWriter } from '@burrow/spool'
import { Registry } from 'prom-client'
import uWS from 'uWebSockets.js'

const dir = process.argv[2]!
mkdirSync(dir, { recursive: true })
const writer = new SpoolWriter({
  dir,
  firstSeq: 0,
  segmentBytes: 16 << 20,
  metrics: createSpoolMetrics(new Registry()),
  onCommit: () => {},
  onRotate: () => {},
  log: (msg) => console.error(msg),
})
writer.prepare()

const app = uWS.App()
app.any('/*', (res) => {
  let aborted = false
  res.onAborted(() => (aborted = true))
  const chunks: Buffer[] = []
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(new Uint8Array(chunk)))
    if (!isLast || aborted) return
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    writer.append({ bytes: body, content: { rows: 1, sightings: [], teamId: 0, persons: undefined, body } }).then(
      () => {
        if (aborted) return
        res.cork(() => {
          res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"status":1}')
        })
      },
      (err: unknown) => {
        console.error(String(err))
        if (!aborted) res.cork(() => res.writeStatus('503 Service Unavailable').end())
      },
    )
  })
})
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) throw new Error('could not listen')
  console.log(`port ${uWS.us_socket_local_port(socket)}`)
})
