import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

// Batches wait for two rows (or a minute), so an event stays in the spool until the next one comes.
let service: TestService
useTestService(
  (s) => {
    service = s
  },
  { BATCH_MAX_ROWS: 2, BATCH_MAX_AGE_MS: 60_000 },
)

async function storedEventsOf(account: TestAccount): Promise<number> {
  const res = await service.app.deps.ch.reader.query({
    query: 'SELECT count() AS n FROM events WHERE team_id = {t:Int64}',
    query_params: { t: account.projectId },
    format: 'JSONEachRow',
  })
  return Number((await res.json<{ n: string }>())[0]?.n)
}

describe('a project deleted while its acknowledged events wait to be stored', () => {
  it('does not get them stored after it is gone, and stores the events behind them', async () => {
    const doomed = await service.account()
    const kept = await service.account()
    expect((await service.post('/capture/', { api_key: doomed.projectToken, event: 'in flight', distinct_id: 'd' })).status).toBe(200)
    expect((await service.api(doomed, `/api/projects/${doomed.projectId}/`, { method: 'DELETE' })).status).toBe(204)
    expect((await service.post('/capture/', { api_key: kept.projectToken, event: 'behind it', distinct_id: 'k' })).status).toBe(200)

    const [stored] = await service.eventsOf(kept, 1)
    expect(stored!.event).toBe('behind it')
    expect(await storedEventsOf(doomed)).toBe(0)
    const [persons] = await service.app.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from persons where project_id = ${doomed.projectId}`
    expect(persons?.n).toBe(0)
  })
})
