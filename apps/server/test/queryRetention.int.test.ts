import { describe, expect, it } from 'vitest'
import { addDays, daysBetween, identifies, localDay, makeEvents, personOf, sendAll, TZ, useQueryProject } from './queryFixture'

const project = useQueryProject(async (service, account) => {
  const events = makeEvents(5, 1200, Date.UTC(2025, 9, 20), Date.UTC(2025, 10, 12))
  const sent = [...events, ...identifies(Date.UTC(2025, 10, 1, 12))]
  await sendAll(service, account, sent)
  return sent
})

/** Days of each person's events of one name, in the project's zone. */
function daysOf(name: string): Map<string, string[]> {
  const days = new Map<string, string[]>()
  for (const e of project.sent) {
    if (e.event !== name) continue
    const person = personOf(e.distinct_id)
    days.set(person, [...(days.get(person) ?? []), localDay(e.timestamp, TZ)])
  }
  return days
}

/** Daily retention by brute force: cohorts of the days ending at `last`, each with its later days. */
function oracle(target: string, returning: string, last: string, total: number, firstTime: boolean) {
  const cohortDays = daysBetween(addDays(last, -(total - 1)), last)
  const targets = daysOf(target)
  const returns = daysOf(returning)
  return cohortDays.map((day, i) => {
    const cohort = [...targets].filter(([, days]) => (firstTime ? [...days].sort()[0] === day : days.includes(day))).map(([p]) => p)
    // Every row has `total` values (PostHog's matrix): zero past the last day.
    return Array.from({ length: total }, (_, j) =>
      j >= total - i ? 0 : j === 0 ? cohort.length : cohort.filter((p) => (returns.get(p) ?? []).includes(cohortDays[i + j]!)).length,
    )
  })
}

/** The Sunday a day's week starts on (the project's weeks start on Sunday). */
const weekOf = (day: string) => addDays(day, -new Date(`${day}T00:00:00Z`).getUTCDay())

/** Retention by brute force over any periods: `periodOf` gives a local day's period, `periods` the cohorts' in order. */
function oracleByPeriod(target: string, returning: string, periods: string[], periodOf: (day: string) => string, firstTime: boolean) {
  const periodsOf = (name: string) => new Map([...daysOf(name)].map(([p, days]) => [p, days.map(periodOf)]))
  const targets = periodsOf(target)
  const returns = periodsOf(returning)
  return periods.map((period, i) => {
    const cohort = [...targets].filter(([, ps]) => (firstTime ? [...ps].sort()[0] === period : ps.includes(period))).map(([p]) => p)
    return Array.from({ length: periods.length }, (_, j) =>
      j >= periods.length - i ? 0 : j === 0 ? cohort.length : cohort.filter((p) => (returns.get(p) ?? []).includes(periods[i + j]!)).length,
    )
  })
}

/** The request for the retention of signups returning to a pageview, up to `dateTo`. */
function signupRetention(options: { dateTo: string; period: string; totalIntervals: number; retentionType: string }) {
  return {
    query: {
      kind: 'RetentionQuery',
      dateRange: { date_to: options.dateTo },
      retentionFilter: {
        targetEntity: { id: 'signup', type: 'events' },
        returningEntity: { id: 'pageview', type: 'events' },
        period: options.period,
        totalIntervals: options.totalIntervals,
        retentionType: options.retentionType,
      },
    },
  }
}

describe('RetentionQuery', () => {
  it.each([['retention_recurring'], ['retention_first_time']])(
    'answers %s cohorts per day of the project timezone',
    async (retentionType) => {
      const res = await project.query(signupRetention({ dateTo: '2025-11-06', period: 'Day', totalIntervals: 8, retentionType }))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const expected = oracle('signup', 'pageview', '2025-11-06', 8, retentionType === 'retention_first_time')
      expect(res.body.results.map((r: any) => r.values.map((v: any) => v.count))).toEqual(expected)
      expect(res.body.results[0]).toMatchObject({ label: 'Day 0', date: '2025-10-30T00:00:00.000-04:00' })
      expect(res.body.results[0].values[1].label).toBe('Day 1')
      expect(expected.flat().some((n) => n > 0)).toBe(true)
    },
  )

  it.each([
    ['Week', ['2025-10-19', '2025-10-26', '2025-11-02', '2025-11-09'], weekOf],
    ['Month', ['2025-10', '2025-11'], (day: string) => day.slice(0, 7)],
    // More periods than a 64-bit mask holds.
    ['Day', daysBetween(addDays('2025-11-10', -69), '2025-11-10'), (day: string) => day],
  ])('answers cohorts of other periods of the project timezone (%s)', async (period, periods, periodOf) => {
    for (const retentionType of ['retention_recurring', 'retention_first_time']) {
      const res = await project.query(signupRetention({ dateTo: '2025-11-10', period, totalIntervals: periods.length, retentionType }))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const expected = oracleByPeriod('signup', 'pageview', periods, periodOf, retentionType === 'retention_first_time')
      expect(res.body.results.map((r: any) => r.values.map((v: any) => v.count))).toEqual(expected)
      expect(expected.some((row) => row.slice(1).some((n) => n > 0))).toBe(true)
    }
  })

  it('answers 400 for a period it does not know', async () => {
    const res = await project.query({ query: { kind: 'RetentionQuery', retentionFilter: { period: 'Fortnight' } } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__retentionFilter__period' })
  })
})
