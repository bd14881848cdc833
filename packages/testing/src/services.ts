import { randomUUID } from 'node:crypto'
import postgres from 'postgres'
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

/**
 * A database of its own on the tests' PostgreSQL server, for a test whose service works on
 * every project it finds (the periodic cohort calculation): other test files' and earlier
 * runs' rows stay out of its way. Undefined when the tests use the embedded PostgreSQL, which
 * is fresh for each service anyway. `drop` removes the database.
 */
export async function isolatedDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const base = await databaseUrlForTests()
  if (!base) return undefined
  const name = `burrow_test_${randomUUID().replaceAll('-', '')}`
  const admin = postgres(base, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const again = postgres(base, { max: 1, onnotice: () => {} })
      try {
        await again.unsafe(`drop database if exists ${name} with (force)`)
      } finally {
        await again.end()
      }
    },
  }
}
