import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { promisify } from 'node:util'
import { deadLetter } from '@burrow/capture'
import { deadLetterQueue } from '@burrow/clickhouse'
import type { TestAccount } from '@burrow/testing'
import { clickHouseEnvFor, waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { setEventsTable, useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
// A small spool bound, so that an outage fills it within a test.
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  { SPOOL_MAX_BYTES: 150_000, SPOOL_SEGMENT_BYTES: 150_000, BATCH_MAX_AGE_MS: 20 },
)

const batchOf = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ event: 'during outage', distinct_id: `${prefix}-${i}`, properties: { pad: 'x'.repeat(200) } }))

describe('while ClickHouse cannot store events', () => {
  it('keeps accepting into the spool, answers 503 at its bound, and stores every acknowledged event once ClickHouse is back', async () => {
    await setEventsTable(service, false)
    let acknowledged = 0
    let refused: Response | undefined
    try {
      for (let i = 0; i < 100 && !refused; i++) {
        const res = await service.post('/batch/', { api_key: account.projectToken, batch: batchOf(`r${i}`, 20) })
        if (res.status === 200) acknowledged += 20
        else refused = res
      }
      expect(acknowledged).toBeGreaterThan(0)
      expect(refused?.status).toBe(503)
      expect(await refused!.json()).toMatchObject({ type: 'server_error', code: 'service_unavailable', attr: null })
      // The consumer keeps retrying while the table is away (the first failure may still be on its way).
      const retried = await waitFor(
        async () => /burrow_flush_retries_total [1-9]/.test(await (await fetch(`${service.baseUrl}/_metrics`)).text()) || undefined,
        { what: 'a retried insert', timeoutMs: 10_000 },
      )
      expect(retried).toBe(true)
    } finally {
      await setEventsTable(service, true)
    }
    const stored = await service.eventsOf(account, acknowledged)
    expect(stored).toHaveLength(acknowledged)
    expect(new Set(stored.map((e) => e.id)).size).toBe(acknowledged)

    // Room again: the spool emptied as its rows were stored.
    await waitFor(
      async () =>
        (await service.post('/batch/', { api_key: account.projectToken, batch: batchOf('after', 1) })).status === 200 ? true : undefined,
      { what: 'capture accepting again', timeoutMs: 10_000 },
    )
  })
})

// Each CLI run starts a process that compiles the sources: seconds each on a busy machine.
describe('npm run cli -- dlq', () => {
  const SERVER_DIR = path.resolve(import.meta.dirname, '..')
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'dlq', ...args], {
      cwd: SERVER_DIR,
      env: { ...process.env, ...clickHouseEnvFor(service.config.DATA_DIR), DATA_DIR: service.config.DATA_DIR },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    )

  it('lists dead letters and replays them through the running service; what fails again stays', async () => {
    const fresh = await service.account()
    const lostUuid = randomUUID()
    const subject = { uuid: lostUuid, event: 'lost', distinctId: 'dl-user', teamId: fresh.projectId, ip: '' }
    const recoverable = deadLetter(
      subject,
      JSON.stringify({
        event: 'lost',
        distinct_id: 'dl-user',
        uuid: lostUuid,
        properties: { plan: 'pro', $set: { email: 'dl@example.com' }, $groups: { company: 'dl-co' } },
      }),
      {
        location: 'ingestion:properties',
        reason: 'step_failed',
        error: 'Error: a bug since fixed',
      },
    )
    const refusedRow = JSON.stringify({
      uuid: randomUUID(),
      event: 'bad',
      properties: '{}',
      timestamp: 'not a time',
      team_id: fresh.projectId,
      distinct_id: 'x',
      elements_chain: '',
      created_at: '2025-01-01 00:00:00.000000',
      person_id: randomUUID(),
    })
    const unrecoverable = deadLetter({ ...subject, uuid: '', event: 'bad' }, refusedRow, {
      location: 'clickhouse_insert',
      reason: 'clickhouse_rejected_row',
      error: 'Cannot parse DateTime',
    })
    await deadLetterQueue.insertDeadLetters(service.app.deps.ch, [recoverable, unrecoverable])

    const listed = await cli('list', '--project', String(fresh.projectId))
    expect(listed.code).toBe(0)
    const letters = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(letters.map((l: { id: string }) => l.id).sort()).toEqual([recoverable.id, unrecoverable.id].sort())
    expect(letters.find((l: { id: string }) => l.id === recoverable.id)).toMatchObject({
      error_location: 'ingestion:properties',
      tags: ['step_failed'],
    })

    const replay = await cli('replay', '--project', String(fresh.projectId))
    expect(replay.code).toBe(1)
    expect(replay.stdout).toContain('replayed 1 of 2 dead letters')
    expect(replay.stderr).toContain(unrecoverable.id)

    const [event] = await service.eventsOf(fresh, 1)
    // A replayed event gets its person and its groups, as it would have the first time.
    expect(event).toMatchObject({
      id: lostUuid,
      event: 'lost',
      distinct_id: 'dl-user',
      properties: { plan: 'pro', $group_0: 'dl-co' },
      person: { distinct_ids: ['dl-user'], properties: { email: 'dl@example.com' } },
    })
    const left = await cli('list', '--project', String(fresh.projectId))
    expect(
      left.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([unrecoverable.id])
  }, 120_000)

  it('purges the dead letters of a project or of given ids, and refuses a purge that names none', async () => {
    const fresh = await service.account()
    const letterOf = (event: string) =>
      deadLetter({ uuid: randomUUID(), event, distinctId: 'p', teamId: fresh.projectId, ip: '' }, JSON.stringify({ event }), {
        location: 'ingestion:properties',
        reason: 'step_failed',
        error: 'Error: kept for a while',
      })
    const [first, second, third] = [letterOf('a'), letterOf('b'), letterOf('c')]
    await deadLetterQueue.insertDeadLetters(service.app.deps.ch, [first, second, third])

    expect(await cli('purge')).toMatchObject({ code: 2, stderr: expect.stringContaining('--project or --id, or pass --all') })
    expect(await cli('purge', '--id', first.id)).toMatchObject({ code: 0, stdout: 'purged 1 dead letters\n' })
    const left = await cli('list', '--project', String(fresh.projectId))
    expect(
      left.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id)
        .sort(),
    ).toEqual([second.id, third.id].sort())
    expect(await cli('purge', '--project', String(fresh.projectId))).toMatchObject({ code: 0, stdout: 'purged 2 dead letters\n' })
    expect((await cli('list', '--project', String(fresh.projectId))).stdout).toBe('')
  }, 120_000)
})
