import type { Config } from '@burrow/config'
import { findIngestionProject, type CoreDeps } from '@burrow/core'
import { listDeadLetters, purgeDeadLetters, replayDeadLetters, whileAllPaused, type EventSpool } from '@burrow/ingestion'
import { startAdminSocket } from '../admin/adminSocket'
import { backupService } from '../admin/backup'
import { logFn, type Logger } from '../logger'
import type { PluginStages } from '../plugins'
import type { Teardown } from './teardown'

/** How long a backup waits for the spool's batches under way to be stored before it gives up (ClickHouse or PostgreSQL not answering). */
const BACKUP_PAUSE_WAIT_MS = 60_000

/** The admin socket in DATA_DIR, through which the CLI asks the running service: dead letters and backups. */
export async function startAdmin(options: {
  config: Config
  logger: Logger
  deps: CoreDeps
  plugins: PluginStages
  beforeStoring: Parameters<typeof replayDeadLetters>[0]['process']
  /** The spool lanes, read when a backup starts (none where this server stores no events). */
  spools: () => EventSpool[]
  teardown: Teardown
}): Promise<void> {
  const { config, deps, plugins, teardown } = options
  const { sql, ch } = deps
  const admin = await startAdminSocket(
    config.DATA_DIR,
    {
      dlqList: (filter) => listDeadLetters(ch, filter),
      dlqReplay: (filter) =>
        replayDeadLetters(
          {
            ch,
            projectById: (id) => findIngestionProject(deps, id),
            process: options.beforeStoring,
            afterStored: (frames) => plugins.afterStored(frames),
          },
          filter,
        ),
      dlqPurge: (filter) => purgeDeadLetters(ch, filter),
      backup: (to) =>
        backupService({ config, sql, ch, whileNotStoring: (work) => whileAllPaused(options.spools(), work, BACKUP_PAUSE_WAIT_MS) }, to),
    },
    logFn(options.logger),
  )
  teardown.onStop(() => admin.close())
}
