import { parseArgs } from 'node:util'
import { loadConfig, type Config } from '@burrow/config'
import { ApiProblem } from '@burrow/contracts'
import { accounts, findIngestionProject } from '@burrow/core'
import { createSharedCache } from '@burrow/cache'
import { GroupStage, listDeadLetters, PersonStage, replayDeadLetters, type DeadLetterFilter, type ReplayOutcome } from '@burrow/ingestion'
import type { FrameContent } from '@burrow/spool'
import { connectPostgres, migratePostgres } from '@burrow/postgres'
import { sendAdminCommand } from './adminSocket'
import { connectClickHouseFrom } from './storage'

const USAGE = `usage: npm run cli -- <command>

commands:
  create-user --email E --organization NAME [--json]
      creates a user who owns a new organization with a first project, and prints the
      user's personal API key (shown once)
  dlq list [--project ID] [--limit N]
      prints the dead letters (events that could not be stored), newest first, one JSON per line
  dlq replay [--project ID] [--id UUID ...]
      ingests dead letters again; those stored leave the queue, the others stay with the reason`

async function createUser(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, organization: { type: 'string' }, json: { type: 'boolean', default: false } },
  })
  if (!values.email || !values.organization) {
    console.error(USAGE)
    return 2
  }
  const config = loadConfig()
  // In embedded mode this finds the running service's PostgreSQL through DATA_DIR.
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  try {
    await migratePostgres(pg.sql)
    const account = await accounts.createAccount(pg.sql, { email: values.email, organizationName: values.organization })
    const result = {
      personal_api_key: account.personalApiKey,
      user_id: account.user.id,
      organization_id: account.organizationId,
      project_id: account.project.id,
      project_api_key: account.project.api_token,
    }
    console.log(
      values.json
        ? JSON.stringify(result)
        : Object.entries(result)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n'),
    )
    return 0
  } catch (err) {
    if (err instanceof ApiProblem) {
      console.error(err.message)
      return 1
    }
    throw err
  } finally {
    await pg.close()
  }
}

/**
 * Runs a dead-letter command in the running service when one answers on its admin socket
 * (the embedded ClickHouse admits one process), else against the storage directly.
 */
async function withDeadLetters<T>(config: Config, command: string, filter: DeadLetterFilter): Promise<T> {
  const viaService = await sendAdminCommand(config.DATA_DIR, command, { project: filter.teamId, ids: filter.ids, limit: filter.limit })
  if (viaService !== undefined) return viaService as T
  const ch = await connectClickHouseFrom(config)
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  const log = (msg: string) => console.error(msg)
  // Merges made by the replay reach the caches of running servers through Redis, when there is one.
  const cache = await createSharedCache(config.REDIS_URL, log)
  try {
    if (command === '/dlq/list') return (await listDeadLetters(ch, filter)) as T
    const persons = new PersonStage({ sql: pg.sql, ch, cache, log })
    const groups = new GroupStage({ sql: pg.sql, ch, cache, log })
    const assignPersons = async (frames: FrameContent[]) => {
      const grouped = await groups.assign(frames)
      await persons.assign(grouped)
      return grouped
    }
    return (await replayDeadLetters({ ch, projectById: (id) => findIngestionProject(pg, id), assignPersons }, filter)) as T
  } finally {
    await cache.close()
    await ch.close()
    await pg.close()
  }
}

async function deadLetters(args: string[]): Promise<number> {
  const [sub, ...rest] = args
  const { values } = parseArgs({
    args: rest,
    options: { project: { type: 'string' }, limit: { type: 'string' }, id: { type: 'string', multiple: true } },
  })
  const filter: DeadLetterFilter = {
    teamId: values.project === undefined ? undefined : Number(values.project),
    ids: values.id,
    limit: values.limit === undefined ? undefined : Number(values.limit),
  }
  if ((sub !== 'list' && sub !== 'replay') || Number.isNaN(filter.teamId) || Number.isNaN(filter.limit)) {
    console.error(USAGE)
    return 2
  }
  const config = loadConfig()
  if (sub === 'list') {
    for (const letter of await withDeadLetters<unknown[]>(config, '/dlq/list', filter)) console.log(JSON.stringify(letter))
    return 0
  }
  const outcomes = await withDeadLetters<ReplayOutcome[]>(config, '/dlq/replay', filter)
  for (const failed of outcomes.filter((o) => !o.replayed)) console.error(`${failed.id}: ${failed.error}`)
  const replayed = outcomes.filter((o) => o.replayed).length
  console.log(`replayed ${replayed} of ${outcomes.length} dead letters`)
  return replayed === outcomes.length ? 0 : 1
}

const [command, ...rest] = process.argv.slice(2)
let code: number
switch (command) {
  case 'create-user':
    code = await createUser(rest)
    break
  case 'dlq':
    code = await deadLetters(rest)
    break
  default:
    console.error(USAGE)
    code = command ? 2 : 0
}
process.exit(code)
