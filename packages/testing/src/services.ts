import { existsSync } from 'node:fs'
import { PostgreSqlContainer, type StartedPostgreSqlContainer } from '@testcontainers/postgresql'

let container: StartedPostgreSqlContainer | undefined

function dockerReachable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock')
}

/**
 * The PostgreSQL the tests use: DATABASE_URL when set (CI sets it to the machine's server);
 * else a container when a Docker engine is reachable; else undefined, which makes the service
 * start its embedded PostgreSQL.
 */
export async function databaseUrlForTests(): Promise<string | undefined> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL
  if (!dockerReachable()) return undefined
  try {
    container ??= await new PostgreSqlContainer('postgres:16-alpine').start()
    return container.getConnectionUri()
  } catch {
    return undefined
  }
}
