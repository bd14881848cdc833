import { describe, expect, it } from 'vitest'
import { addDays, daysBetween, identifies, localDay, makeEvents, personOf, sendAll, TZ, useQueryProject } from './queryFixture'

// From the second day of events: persons are created in the range, and some were active the day before it.
const FROM = '2025-10-21'
const TO = '2025-11-06'
const DAYS = daysBetween(FROM, TO)
/** Each person (by its user id) and the day it was created, as the persons API tells. */
const createdDay = new Map<string, string>()

const project = useQueryProject(async (service, account) => {
  // Sparse activity, so that persons come back after gaps.
  const events = makeEvents(7, 900, Date.UTC(2025, 9, 20), Date.UTC(2025, 10, 10))
  // Persons whose events come in time order, so that each is created by its first event inside the range: new persons.
  const fresh = [0, 1, 2, 3].flatMap((k) =>
    [0, 1, 4].map((d) => ({
      event: 'pageview',
      distinct_id: `fresh-${k}`,
      timestamp: new Date(Date.UTC(2025, 9, 27 + k + d, 15)).toISOString(),
      properties: {},
    })),
  )
  const sent = [...events, ...identifies(Date.UTC(2025, 10, 1, 12)), ...fresh]
  await sendAll(service, account, [...events, ...identifies(Date.UTC(2025, 10, 1, 12))])
  await sendAll(service, account, fresh, sent.length - fresh.length)
  const res = await service.api(account, `/api/projects/${account.projectId}/persons/?limit=100`)
  const persons = (await res.json()).results as Array<{ distinct_ids: string[]; created_at: string }>
  for (const person of persons) createdDay.set(personOf(person.distinct_ids[0]!), localDay(person.created_at, TZ))
  return sent
})

/** The lifecycle of each day of DAYS, computed as PostHog defines it from the events sent. */
function oracle(event: string | null) {
  const periods = [addDays(FROM, -1), ...DAYS]
  const activity = new Map<string, Set<string>>()
  for (const e of project.sent) {
    if (event !== null && e.event !== event) continue
    const day = localDay(e.timestamp, TZ)
    if (!periods.includes(day)) continue
    const person = personOf(e.distinct_id)
    if (!activity.has(person)) activity.set(person, new Set())
    activity.get(person)!.add(day)
  }
  const counts = {
    new: new Map<string, number>(),
    returning: new Map<string, number>(),
    resurrecting: new Map<string, number>(),
    dormant: new Map<string, number>(),
  }
  const add = (status: keyof typeof counts, day: string) => counts[status].set(day, (counts[status].get(day) ?? 0) + 1)
  for (const [person, days] of activity) {
    const active = [...days].sort()
    active.forEach((day, i) => {
      if (i === 0) add(createdDay.get(person) === day ? 'new' : 'resurrecting', day)
      else add(addDays(day, -1) === active[i - 1] ? 'returning' : 'resurrecting', day)
      if (active[i + 1] !== addDays(day, 1)) add('dormant', addDays(day, 1))
    })
  }
  return {
    new: DAYS.map((d) => counts.new.get(d) ?? 0),
    returning: DAYS.map((d) => counts.returning.get(d) ?? 0),
    resurrecting: DAYS.map((d) => counts.resurrecting.get(d) ?? 0),
    dormant: DAYS.map((d) => -(counts.dormant.get(d) ?? 0)),
  }
}

describe('LifecycleQuery', () => {
  it.each([['pageview'], [null]])('answers new, returning, resurrecting and dormant persons of %s per day', async (event) => {
    const res = await project.query({
      query: { kind: 'LifecycleQuery', dateRange: { date_from: FROM, date_to: TO }, series: [{ kind: 'EventsNode', event }] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected = oracle(event)
    expect(res.body.results.map((r: any) => r.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant'])
    for (const row of res.body.results) {
      expect(row.days).toEqual(DAYS)
      expect(row.data, row.status).toEqual(expected[row.status as keyof typeof expected])
      expect(row.label).toBe(`${event ?? 'All events'} - ${row.status}`)
    }
    // Somebody comes back after a gap, and somebody goes dormant: the oracle is not trivially zero.
    expect(expected.resurrecting.some((n) => n > 0)).toBe(true)
    expect(expected.dormant.some((n) => n < 0)).toBe(true)
    expect(expected.new.filter((n) => n > 0)).toHaveLength(4)
  })

  it('refuses more than one series', async () => {
    const res = await project.query({
      query: {
        kind: 'LifecycleQuery',
        series: [
          { kind: 'EventsNode', event: 'a' },
          { kind: 'EventsNode', event: 'b' },
        ],
      },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__series' })
  })
})
