import { existsSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, type Config } from '@burrow/config'
import { ApiProblem, MEMBERSHIP_LEVELS } from '@burrow/contracts'
import { accounts, consoleAuth, findIngestionProject } from '@burrow/core'
import { createSharedCache } from '@burrow/cache'
import { listDeadLetters, purgeDeadLetters, replayDeadLetters, type DeadLetterFilter, type ReplayOutcome } from '@burrow/ingestion'
import { createCaptureMetrics } from '@burrow/capture'
import { Registry } from 'prom-client'
import { connectPostgres, migratePostgres, pluginConfigs, pluginWebhookOutbox, type Pool } from '@burrow/postgres'
import { AdminCommandRefused, sendAdminCommand } from './adminSocket'
import { backupService, restoreService, type BackupManifest } from './backup'
import { serviceDataProblem } from '../dataDir'
import { SERVICE_COMMIT, SERVICE_VERSION } from '../observability/serviceMetrics'
import { DataDirInUseError, lockDataDir } from '../ownership/dataDirLock'
import { connectClickHouseFrom } from '../storage'
import { beforeStoringWith } from '../eventStages'
import { pluginStages } from '../plugins'

/** A command cannot run as asked: its message is for the user, and the CLI exits with status 1. */
class Refusal extends Error {}

/** Refuses a DATA_DIR that holds no data of the service, before an embedded engine would create empty databases there. */
function requireServiceData(config: Config): void {
  const problem = serviceDataProblem(config)
  if (problem) throw new Refusal(problem)
}

const USAGE = `usage: npm run cli -- <command>

commands:
  create-user --email E --organization NAME [--json]
      creates a user who owns a new organization with a first project, and prints the
      user's personal API key (shown once)
  create-user --email E --organization-id UUID [--level member|admin|owner] [--json]
      creates a user who joins an existing organization (a member unless told), and prints
      the user's personal API key (shown once)
  set-password --email E [--generate]
      sets the user's console password, read from the first line of standard input (or a
      generated one, printed once), and signs out their sessions
  dlq list [--project ID] [--limit N]
      prints the dead letters (events that could not be stored), newest first, one JSON per line
  dlq replay [--project ID] [--id UUID ...]
      ingests dead letters again; those stored leave the queue, the others stay with the reason
  dlq purge (--project ID | --id UUID ... | --all)
      removes dead letters for good (they also expire after DEAD_LETTER_RETENTION_DAYS)
  plugins replay --config ID
      queues the undelivered events of a Webhook Export config again (those its endpoint refused
      and those still waiting), to be sent at once by the running service
  backup --to DIR
      copies the embedded PostgreSQL, the embedded ClickHouse and the spool into DIR (new or
      empty), through the running service when there is one
  restore --from DIR
      restores a backup into DATA_DIR (new or empty), with the service stopped; start it after
  version
      prints the release and the commit this build was made from

DATA_DIR names the service's data directory (DATABASE_URL and CLICKHOUSE_URL its servers).`

/**
 * The service's PostgreSQL, migrated, for a command that writes configuration. In embedded mode
 * it is found through DATA_DIR; with no service running, the directory is held meanwhile, so
 * that none starts on the server this command starts (and stops).
 */
async function servicePostgres() {
  const config = loadConfig()
  requireServiceData(config)
  holdDataDirUnlessServed(config)
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  try {
    await migratePostgres(pg.sql)
  } catch (err) {
    await pg.close()
    throw err
  }
  return pg
}

/**
 * Runs a configuration command on the service's PostgreSQL and closes it: a refusal the API
 * would answer (an `ApiProblem`) is printed as the command's error, exit status 1.
 */
async function withServicePostgres(run: (sql: Pool) => Promise<number>): Promise<number> {
  const pg = await servicePostgres()
  try {
    return await run(pg.sql)
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

async function createUser(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      organization: { type: 'string' },
      'organization-id': { type: 'string' },
      level: { type: 'string', default: 'member' },
      json: { type: 'boolean', default: false },
    },
  })
  const level = MEMBERSHIP_LEVELS[values.level as keyof typeof MEMBERSHIP_LEVELS]
  // One of a new organization's name or an existing one's id.
  if (!values.email || !values.organization === !values['organization-id'] || level === undefined) {
    console.error(USAGE)
    return 2
  }
  const email = values.email
  const organization = values.organization
  const existingOrganization = values['organization-id']
  return withServicePostgres(async (sql) => {
    const account = existingOrganization
      ? await accounts.createMember(sql, { email, organizationId: existingOrganization, level })
      : await accounts.createAccount(sql, { email, organizationName: organization! })
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
  })
}

/** The first line of standard input (a password piped in, or typed). */
async function firstLineOfStdin(): Promise<string> {
  const lines = createInterface({ input: process.stdin, terminal: false })
  for await (const line of lines) {
    lines.close()
    return line
  }
  return ''
}

async function setPassword(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, generate: { type: 'boolean', default: false } } })
  if (!values.email) {
    console.error(USAGE)
    return 2
  }
  if (!values.generate && process.stdin.isTTY) process.stderr.write(`New password for ${values.email}: `)
  const email = values.email
  const password = values.generate ? consoleAuth.generatePassword() : await firstLineOfStdin()
  return withServicePostgres(async (sql) => {
    const user = await consoleAuth.setPassword(sql, email, password)
    console.error(`set the console password of ${user.email}; their sessions are signed out`)
    if (values.generate) console.log(password)
    return 0
  })
}

/**
 * Runs a dead-letter command in the running service when one answers on its admin socket
 * (the embedded ClickHouse admits one process), else against the storage directly.
 */
async function withDeadLetters<T>(config: Config, command: string, filter: DeadLetterFilter): Promise<T> {
  const viaService = await sendAdminCommand(config.DATA_DIR, command, { project: filter.teamId, ids: filter.ids, limit: filter.limit })
  if (viaService !== undefined) return viaService as T
  // The storage directly: only while no other process has the directory (the embedded ClickHouse admits one).
  holdServiceData(config)
  const ch = await connectClickHouseFrom(config)
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  const log = (msg: string) => console.error(msg)
  // Merges made by the replay reach the caches of running servers through Redis, when there is one.
  const cache = await createSharedCache(config.REDIS_URL, log)
  try {
    if (command === '/dlq/list') return (await listDeadLetters(ch, filter)) as T
    if (command === '/dlq/purge') return (await purgeDeadLetters(ch, filter)) as T
    // As the service would: the projects' plugins run on the events, and their destinations get
    // them (sent by the servers' webhook senders once they run).
    const deps = { sql: pg.sql, ch, cache, log }
    const registry = new Registry()
    const plugins = pluginStages(config, deps, registry, createCaptureMetrics(registry).eventsDropped)
    try {
      return (await replayDeadLetters(
        {
          ch,
          projectById: (id) => findIngestionProject(pg, id),
          process: beforeStoringWith(deps, plugins),
          afterStored: plugins.afterStored,
        },
        filter,
      )) as T
    } finally {
      await plugins.stop()
    }
  } finally {
    await cache.close()
    await ch.close()
    await pg.close()
  }
}

/** Holds DATA_DIR for the rest of the command, unless a service (or another command) holds it. */
function holdDataDirUnlessServed(config: Config): void {
  try {
    lockDataDir(config.DATA_DIR)
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err
  }
}

/**
 * Holds DATA_DIR for the rest of the command (or ends it naming the process that holds it), and
 * refuses it unless it holds the service's data. A directory that does not exist is refused
 * before the lock would create it.
 */
function holdServiceData(config: Config): void {
  if (existsSync(config.DATA_DIR)) holdDataDir(config)
  requireServiceData(config)
}

/** Holds DATA_DIR for the rest of the command, or ends it naming the process that holds it. */
function holdDataDir(config: Config): void {
  try {
    lockDataDir(config.DATA_DIR)
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err
    console.error(err.message)
    process.exit(1)
  }
}

async function deadLetters(args: string[]): Promise<number> {
  const [sub, ...rest] = args
  const { values } = parseArgs({
    args: rest,
    options: {
      project: { type: 'string' },
      limit: { type: 'string' },
      id: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
    },
  })
  const filter: DeadLetterFilter = {
    teamId: values.project === undefined ? undefined : Number(values.project),
    ids: values.id,
    limit: values.limit === undefined ? undefined : Number(values.limit),
  }
  if ((sub !== 'list' && sub !== 'replay' && sub !== 'purge') || Number.isNaN(filter.teamId) || Number.isNaN(filter.limit)) {
    console.error(USAGE)
    return 2
  }
  // Removing every dead letter is asked for in so many words.
  if (sub === 'purge' && filter.teamId === undefined && filter.ids === undefined && !values.all) {
    console.error('dlq purge removes dead letters for good: name them with --project or --id, or pass --all')
    return 2
  }
  const config = loadConfig()
  if (sub === 'purge') {
    const purged = await withDeadLetters<number>(config, '/dlq/purge', filter)
    console.log(`purged ${purged} dead letters`)
    return 0
  }
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

function printManifest(verb: 'backed up' | 'restored', dir: string, manifest: BackupManifest): void {
  const parts = [manifest.postgres && 'PostgreSQL', manifest.clickhouse && 'ClickHouse', manifest.spool && 'the spool'].filter(Boolean)
  console.log(`${verb} ${parts.join(', ')} ${verb === 'backed up' ? 'into' : 'from'} ${dir}`)
  for (const note of manifest.not_included) console.log(`not included: ${note}`)
}

async function backup(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { to: { type: 'string' } } })
  if (!values.to) {
    console.error(USAGE)
    return 2
  }
  const to = path.resolve(values.to)
  const config = loadConfig()
  const viaService = (await sendAdminCommand(config.DATA_DIR, '/backup', { to })) as BackupManifest | undefined
  if (viaService) {
    printManifest('backed up', to, viaService)
    return 0
  }
  holdServiceData(config)
  const ch = await connectClickHouseFrom(config)
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  try {
    printManifest('backed up', to, await backupService({ config, sql: pg.sql, ch }, to))
    return 0
  } finally {
    await ch.close()
    await pg.close()
  }
}

async function restore(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } } })
  if (!values.from) {
    console.error(USAGE)
    return 2
  }
  const config = loadConfig()
  printManifest('restored', path.resolve(values.from), await restoreService(config, values.from))
  console.log(`start the service with DATA_DIR=${path.resolve(config.DATA_DIR)}`)
  return 0
}

async function pluginsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args
  const { values } = parseArgs({ args: rest, options: { config: { type: 'string' } } })
  const id = Number(values.config)
  if (sub !== 'replay' || !Number.isSafeInteger(id) || id <= 0) {
    console.error(USAGE)
    return 2
  }
  const pg = await servicePostgres()
  try {
    const row = await pluginConfigs.pluginConfigById(pg.sql, id)
    if (!row || row.deleted) throw new Refusal(`there is no plugin config ${id}`)
    const queued = await pluginWebhookOutbox.replayDeliveries(pg.sql, id)
    console.log(`${queued} undelivered event(s) of plugin config ${id} queued again`)
    if (!row.enabled) console.log(`plugin config ${id} is disabled: enable it (PATCH {"enabled": true}) for them to be sent`)
    return 0
  } finally {
    await pg.close()
  }
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  try {
    switch (command) {
      case 'create-user':
        return await createUser(rest)
      case 'set-password':
        return await setPassword(rest)
      case 'dlq':
        return await deadLetters(rest)
      case 'plugins':
        return await pluginsCommand(rest)
      case 'backup':
        return await backup(rest)
      case 'restore':
        return await restore(rest)
      case 'version':
        console.log(`${SERVICE_VERSION} ${SERVICE_COMMIT}`)
        return 0
      default:
        console.error(USAGE)
        return command ? 2 : 0
    }
  } catch (err) {
    // What the user can act on is said plainly; anything else is a failure with its stack.
    if (err instanceof Refusal || err instanceof AdminCommandRefused || err instanceof ConfigError) {
      console.error(err.message)
      return 1
    }
    throw err
  }
}

const [command, ...rest] = process.argv.slice(2)
process.exit(await run(command, rest))
