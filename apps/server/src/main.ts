import { existsSync } from 'node:fs'
import path from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { ConfigError, loadConfig, type Config } from '@burrow/config'
import { startApp } from './app'
import { dataDirProblem, DataDirRefused } from './dataDir'
import { createLogger } from './logger'
import { DataDirInUseError, lockDataDir, type DataDirLock } from './ownership/dataDirLock'
import { keepDataDirPrivate } from './ownership/privateDataDir'
import { ensurePortFree, PortInUseError } from './ownership/portProbe'

// The old generation may grow to three times what survived the last major garbage collection
// before the next one. With the factor V8 chooses itself, steady capture at half the maximum
// rate brought about five major collections in 10 s, each holding requests for up to 10-20 ms,
// which made the p99 (see the README); with this one, about one. V8 reads the setting each
// time it sets its next limit, so setting it once the process runs takes effect.
setFlagsFromString('--heap-growing-percent=200')

let config: Config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message)
    process.exit(2)
  }
  throw err
}
const logger = createLogger(config)

process.on('unhandledRejection', (reason) => {
  logger.error({ err: reason }, 'unhandled promise rejection')
})

// The data directory and the port are taken before anything in DATA_DIR is opened (the embedded
// PostgreSQL and ClickHouse, the spool, the admin socket) or listens on the port.
let dataDirLock: DataDirLock
/** What refuses a start besides another owner: looked at before DATA_DIR is made, when it does not exist yet. */
const refusal = async () => {
  await ensurePortFree(config.HOST, config.PORT)
  const problem = await dataDirProblem(config)
  if (problem) throw new DataDirRefused(problem)
}
try {
  // A refused start creates nothing. A DATA_DIR that exists is locked first, so that a second
  // instance started on it by mistake is told which process has it rather than that the port is taken.
  const existed = existsSync(path.resolve(config.DATA_DIR))
  if (!existed) await refusal()
  dataDirLock = lockDataDir(config.DATA_DIR)
  // Every tenant's events are under DATA_DIR: other local users reach none of it. As root, the
  // embedded PostgreSQL runs as the `postgres` user, which must pass through to its directory.
  keepDataDirPrivate(config.DATA_DIR, { enterableByOthers: !config.DATABASE_URL && process.getuid?.() === 0 }, (msg) => logger.warn(msg))
  if (existed) await refusal()
} catch (err) {
  // Another owner is the expected refusal; anything else (no permission on DATA_DIR or the port) keeps its details.
  if (err instanceof DataDirInUseError || err instanceof PortInUseError || err instanceof DataDirRefused)
    logger.fatal(`not starting: ${err.message}`)
  else logger.fatal({ err }, `not starting: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
}

const starting = startApp(config, logger)
let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  logger.info(`${signal}: stopping, storing accepted events first`)
  const deadline = setTimeout(() => {
    logger.error('shutdown took too long, exiting')
    process.exit(1)
  }, config.SHUTDOWN_TIMEOUT_MS)
  try {
    // A signal during the start stops the service once it has started (a failed start exits below).
    const app = await starting
    await app.stop()
    dataDirLock.release()
    clearTimeout(deadline)
    process.exit(0)
  } catch (err) {
    logger.error({ err }, 'shutdown failed')
    process.exit(1)
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))

// The handlers are in place before the start ends: a signal right after `ready` stops the service
// instead of killing it.
await starting.catch((err: unknown) => {
  logger.fatal({ err }, `could not start: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
