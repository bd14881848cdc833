import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { cohorts as cohortQueries, persons, type PersonRef } from '@burrow/postgres'
import { createTestAccount, waitFor, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOnePersonPerUser, identifyThroughBoth } from './identifiedAcrossInstances'
import { startTestService, type TestService } from './service'
import { exitCode, startServiceProcess, type ServiceProcess } from './serviceProcess'

/**
 * Two server instances sharing PostgreSQL and Redis, as behind a load balancer: this process's
 * and a child process. Each has its own embedded ClickHouse, so the persons are checked in
 * PostgreSQL, which both instances write.
 */
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const USERS = 40

let a: TestService
let b: ServiceProcess
let account: TestAccount
const childDir = mkdtempSync(path.join(tmpdir(), 'burrow-second-'))
chmodSync(childDir, 0o755)

beforeAll(async () => {
  a = await startTestService({ DATABASE_URL, REDIS_URL, BATCH_MAX_AGE_MS: 20 })
  b = await startServiceProcess({
    ...process.env,
    DATABASE_URL,
    REDIS_URL,
    DATA_DIR: childDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BATCH_MAX_AGE_MS: '20',
  })
  account = await createTestAccount(a.app.deps.sql)
}, 120_000)

afterAll(async () => {
  if (b) {
    const exited = exitCode(b.child)
    b.child.kill('SIGTERM')
    await exited
  }
  await a?.stop()
  rmSync(childDir, { recursive: true, force: true })
})

async function batch(baseUrl: string, events: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${baseUrl}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: account.projectToken, batch: events }) })
  expect(res.status).toBe(200)
}

describe('persons written by two server instances at once', () => {
  it('ends with one person per user holding all its distinct ids, whichever instance saw which event first', async () => {
    const users = Array.from({ length: USERS }, (_, k) => k)
    await identifyThroughBoth(batch, [a.baseUrl, b.baseUrl], users)
    await expectOnePersonPerUser(a.app.deps.sql, account.projectId, users)
  })
})

/**
 * Runs `statement` while another server's merge of the anonymous person into the user's holds
 * both persons locked, as mergeDistinctIds does; the merge moves the ids and deletes the
 * anonymous person once `statement` waits for its lock (seen as a query containing `waitsAs`).
 */
async function duringMerge<T>(names: { anon: string; user: string }, waitsAs: string, statement: (anon: PersonRef) => Promise<T>) {
  const sql = a.app.deps.sql
  const { refs } = await persons.createPersons(sql, account.projectId, [
    { distinctId: names.anon, createdAt: new Date() },
    { distinctId: names.user, createdAt: new Date() },
  ])
  const anon = refs.get(names.anon)!
  const user = refs.get(names.user)!
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let lockTaken!: () => void
  const locked = new Promise<void>((resolve) => (lockTaken = resolve))
  const merge = sql.begin(async (tx) => {
    await tx`select id from persons where id in (${anon.id}, ${user.id}) order by id for update`
    lockTaken()
    await released
    await tx`update person_distinct_ids set person_id = ${user.id} where person_id = ${anon.id}`
    await tx`delete from persons where id = ${anon.id}`
  })
  await locked
  const result = statement(anon)
  await waitFor(
    async () => {
      const [{ waiting } = { waiting: 0 }] = await sql<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock' and query like ${`%${waitsAs}%`}`
      return waiting > 0 || undefined
    },
    { what: 'the statement waiting for the merge', timeoutMs: 5_000, intervalMs: 20 },
  )
  release()
  await merge
  return { anon, user, result: await result }
}

describe('a property change racing a merge', () => {
  it('lands on the person the merge kept when its person is merged away while the change waits for it', async () => {
    const { anon, result } = await duringMerge({ anon: 'race-anon', user: 'race-user' }, 'jsonb_to_recordset', (person) =>
      persons.updatePersonProperties(a.app.deps.sql, new Map([[person.id, { set: {}, setOnce: { landing: '/race' }, unset: [] }]])),
    )
    // Reported missing, the change is looked up again and applied to the merged person.
    expect(result.updated).toEqual([])
    expect(result.missing).toEqual([anon.id])
  })
})

describe('a static cohort upload racing a merge', () => {
  it('adds the person the merge kept when the uploaded id’s person is merged away meanwhile', async () => {
    const res = await fetch(`${a.baseUrl}/api/projects/${account.projectId}/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.personalApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'listed', is_static: true }),
    })
    expect(res.status).toBe(201)
    const cohort = (await res.json()) as { id: number }
    const { user, result } = await duringMerge({ anon: 'listed-anon', user: 'listed-user' }, 'insert into cohort_people', () =>
      cohortQueries.addStaticMembers(a.app.deps.sql, account.projectId, cohort.id, ['listed-anon']),
    )
    expect(result).toBe(1)
    const members = await a.app.deps.sql<
      { person_id: number }[]
    >`select person_id::int as person_id from cohort_people where cohort_id = ${cohort.id}`
    expect(members).toEqual([{ person_id: user.id }])
  })
})

describe('what one instance remembers of a person another instance changes', () => {
  it('writes a value this instance remembers the person holding once another instance changed it', async () => {
    const planOf = async () => {
      const [row] = await a.app.deps.sql<{ plan: string | null }[]>`
        select p.properties->>'plan' as plan from persons p join person_distinct_ids d on d.person_id = p.id
        where d.project_id = ${account.projectId} and d.distinct_id = 'switcher'`
      return row?.plan
    }
    const setPlan = async (baseUrl: string, plan: string) => {
      await batch(baseUrl, [{ event: '$pageview', distinct_id: 'switcher', properties: { $set: { plan } } }])
      await waitFor(async () => ((await planOf()) === plan ? true : undefined), { what: `plan ${plan}`, timeoutMs: 15_000, intervalMs: 50 })
    }
    // This instance created the person and remembers it holding `free`.
    await setPlan(a.baseUrl, 'free')
    await setPlan(b.baseUrl, 'pro')
    // Told of the other instance's write, it no longer takes `free` for what the person holds.
    await setPlan(a.baseUrl, 'free')
  })
})
