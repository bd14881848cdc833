import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { postQuery, sendAll, type SentEvent } from './queryFixture'
import { useTestService, type TestService } from './service'

/**
 * Cases from PostHog's own insight tests (posthog/hogql_queries/insights/**\/test/*.py), each named
 * after the test it comes from: the test's events, sent through /batch/ as a client sends them,
 * and the numbers it asserts. Each case has a project of its own, as each PostHog test has a team.
 */

let service: TestService
useTestService((s) => {
  service = s
})

/** Events one after the other, a minute apart from `start`, in the order given. */
function inOrder(start: string, events: Array<[name: string, distinctId: string, properties?: Record<string, unknown>]>): SentEvent[] {
  return events.map(([event, distinct_id, properties = {}], i) => ({
    event,
    distinct_id,
    timestamp: new Date(Date.parse(start) + i * 60_000).toISOString(),
    properties,
  }))
}

interface OracleProject {
  account: TestAccount
  query(query: Record<string, unknown>): Promise<{ status: number; body: any }>
}

/** A new project holding `events`, with `settings` (timezone, test account filters …) set first. */
async function projectWith(events: SentEvent[], settings: Record<string, unknown> = {}): Promise<OracleProject> {
  const account = await service.account()
  if (Object.keys(settings).length > 0) {
    const res = await service.api(account, `/api/projects/${account.projectId}/`, { method: 'PATCH', body: JSON.stringify(settings) })
    if (res.status !== 200) throw new Error(`setting ${Object.keys(settings).join(', ')} answered ${res.status}`)
  }
  await sendAll(service, account, events, 0, 0)
  return { account, query: (query) => postQuery(service, account, { query, refresh: 'force_blocking' }) }
}

const anyEvent = { kind: 'EventsNode', event: null }

describe('funnels/test/test_funnel.py', () => {
  // PostHog's _movie_event is an $autocapture; which event it is does not matter to a step of every event.
  it('test_funnel_with_any_event: one event fills one step of every event, and such a step is named null', async () => {
    const project = await projectWith(
      inOrder('2024-03-01T10:00:00Z', [
        ['user signed up', 'stopped_after_signup'],
        ['user signed up', 'stopped_after_pay'],
        ['$autocapture', 'stopped_after_pay'],
        ['user signed up', 'completed_movie'],
        ['$autocapture', 'completed_movie'],
        ['$autocapture', 'just_did_movie'],
        ['$autocapture', 'wrong_order'],
        ['user signed up', 'wrong_order'],
        ['$autocapture', 'wrong_order'],
      ]),
    )
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: [anyEvent, anyEvent, anyEvent],
      dateRange: { date_from: '2024-02-25', date_to: '2024-03-05' },
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((s: any) => s.count)).toEqual([5, 3, 1])
    expect(res.body.results.map((s: any) => s.name)).toEqual([null, null, null])
  })

  it('one event does not fill two steps of every event', async () => {
    const project = await projectWith(inOrder('2024-03-01T10:00:00Z', [['a', 'p1']]))
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: [anyEvent, anyEvent],
      dateRange: { date_from: '2024-02-25', date_to: '2024-03-05' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results.map((s: any) => s.count)).toEqual([1, 0])
  })
})
