import { setFlagsFromString } from 'node:v8'
import { ConfigError, loadConfig, type Config } from '@burrow/config'
import { startApp } from './app'
import { createLogger } from './logger'

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

const app = await startApp(config, logger).catch((err: unknown) => {
  logger.fatal({ err }, 'could not start')
  process.exit(1)
})

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
    await app.stop()
    clearTimeout(deadline)
    process.exit(0)
  } catch (err) {
    logger.error({ err }, 'shutdown failed')
    process.exit(1)
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
