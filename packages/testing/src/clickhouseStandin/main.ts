// The stand-in as a process of its own: `npm run clickhouse:standin -- --port P --path DIR`.
// It prints `listening on http://HOST:PORT` once it answers. Started by a test (with an IPC
// channel), it takes faults and outages from the test through that channel.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startClickHouseStandin } from './server'
import type { StandinCommand, StandinReply } from './control'

const usage =
  'usage: clickhouse:standin -- --path DIR [--port P] [--host H] [--user U] [--password P] [--config-file FILE] [--max-header-bytes N]\n' +
  "  serves ClickHouse's HTTP interface over the embedded engine (chDB), with its data in DIR"

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`)
  process.exit(2)
}

let args
try {
  args = parseArgs({
    options: {
      path: { type: 'string' },
      port: { type: 'string', default: '8123' },
      host: { type: 'string', default: '127.0.0.1' },
      user: { type: 'string', default: 'default' },
      password: { type: 'string', default: '' },
      'config-file': { type: 'string' },
      'max-header-bytes': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }).values
} catch (err) {
  fail(err instanceof Error ? err.message : String(err))
}
if (args.help) {
  process.stdout.write(`${usage}\n`)
  process.exit(0)
}
if (!args.path) fail('--path is required')
const port = Number(args.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, not ${args.port}`)
const maxHeaderBytes = args['max-header-bytes'] === undefined ? undefined : Number(args['max-header-bytes'])
if (maxHeaderBytes !== undefined && !(Number.isInteger(maxHeaderBytes) && maxHeaderBytes > 0)) {
  fail(`--max-header-bytes must be a positive number of bytes, not ${args['max-header-bytes']}`)
}

const dataDir = path.resolve(args.path)
mkdirSync(dataDir, { recursive: true })
const standin = await startClickHouseStandin({
  path: dataDir,
  port,
  host: args.host,
  user: args.user,
  password: args.password,
  configFile: args['config-file'],
  maxHeaderBytes,
}).catch((err: unknown) => fail(`could not start: ${err instanceof Error ? err.message : String(err)}`))
process.stdout.write(`listening on ${standin.url}\n`)

const shutdown = () => {
  standin.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)

if (process.send) {
  const reply = (message: StandinReply) => process.send?.(message)
  process.on('message', (message: StandinCommand) => {
    const run = async () => {
      switch (message.op) {
        case 'fault':
          standin.faults.add(message.rule)
          return
        case 'clear-faults':
          standin.faults.clear()
          return
        case 'refuse':
          return standin.refuse()
        case 'accept':
          return standin.accept()
      }
    }
    run().then(
      () => reply({ id: message.id, ok: true }),
      (err: unknown) => reply({ id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    )
  })
  // The test that started it is gone: so is the stand-in.
  process.on('disconnect', shutdown)
}
