import { describe, expect, it } from 'vitest'
import { actorRowsOf, actorsQueryOf, pointOfRow, whyNoActors } from './insightActors'
import type { InsightSource } from './insightQuery'

const TREND: InsightSource = {
  kind: 'TrendsQuery',
  series: [
    { kind: 'EventsNode', event: 'signed up', name: 'signed up' },
    { kind: 'EventsNode', event: 'order placed', name: 'order placed', math: 'dau' },
  ],
  interval: 'day',
  dateRange: { date_from: '-7d' },
  breakdownFilter: { breakdown_type: 'event', breakdown: 'plan' },
  compareFilter: { compare: true },
}

describe('the persons behind a number of an insight', () => {
  it('asks for the persons of a trend’s point in the previous period, for its series and breakdown value, most events first', () => {
    const row = {
      action: { order: 1 },
      label: 'order placed - pro',
      days: ['2026-11-20', '2026-11-21'],
      breakdown_value: 'pro',
      compare_label: 'previous',
      data: [0, 2],
    }
    const chosen = pointOfRow(TREND, row, 1, 2)
    expect(chosen).toMatchObject({ title: 'order placed - pro on 2026-11-21 (previous period)', persons: 2 })
    expect(actorsQueryOf(TREND, chosen!.point, 100)).toEqual({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: TREND, series: 1, day: '2026-11-21', breakdown: 'pro', compare: 'previous' },
      select: ['person', 'event_count'],
      orderBy: ['event_count DESC'],
      limit: 100,
      offset: 100,
    })
  })

  it('asks for the whole range of a total, and counts no persons for a count of events', () => {
    const total = { ...TREND, trendsFilter: { display: 'ActionsTable' } }
    const chosen = pointOfRow(total, { action: { order: 0 }, label: 'signed up - free', breakdown_value: 'free' }, undefined, 3)
    expect(chosen?.persons).toBeUndefined()
    expect(actorsQueryOf(total, chosen!.point).source).toEqual({ kind: 'InsightActorsQuery', source: total, series: 0, breakdown: 'free' })
  })

  it('asks for a funnel step’s converted persons, and with a negative step those who dropped off before it', () => {
    const funnel: InsightSource = { kind: 'FunnelsQuery', series: [], breakdownFilter: { breakdown: 'plan' } }
    expect(actorsQueryOf(funnel, { kind: 'FunnelsQuery', step: 2, droppedOff: false, breakdown: ['pro'] })).toEqual({
      kind: 'ActorsQuery',
      source: { kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 2, funnelStepBreakdown: ['pro'] },
      select: ['person'],
      limit: 100,
      offset: 0,
    })
    expect(actorsQueryOf(funnel, { kind: 'FunnelsQuery', step: 2, droppedOff: true }).source).toEqual({
      kind: 'FunnelsActorsQuery',
      source: funnel,
      funnelStep: -2,
    })
  })

  it('names a stickiness bar by its intervals, or more when cumulative, with as many persons as it counts', () => {
    const stickiness: InsightSource = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'page viewed' }] }
    const row = { action: { order: 0 }, label: 'page viewed', days: [1, 2, 3] }
    expect(pointOfRow(stickiness, row, 1, 5)).toEqual({
      point: { kind: 'StickinessQuery', series: 0, day: 2, previous: false },
      title: 'page viewed, active in 2 intervals',
      persons: 5,
    })
    const cumulative = { ...stickiness, stickinessFilter: { computedAs: 'cumulative' } }
    expect(pointOfRow(cumulative, row, 0, 9)?.title).toBe('page viewed, active in 1 interval or more')
    expect(actorsQueryOf(cumulative, pointOfRow(cumulative, row, 0, 9)!.point).source).toEqual({
      kind: 'InsightActorsQuery',
      source: cumulative,
      series: 0,
      day: 1,
    })
  })

  it('names a lifecycle bar by its status and day, a dormant one as many persons as it counts below zero', () => {
    const lifecycle: InsightSource = { kind: 'LifecycleQuery', series: [] }
    const chosen = pointOfRow(lifecycle, { status: 'dormant', days: ['2026-11-28'] }, 0, -2)
    expect(chosen).toEqual({
      point: { kind: 'LifecycleQuery', day: '2026-11-28', status: 'dormant' },
      title: 'dormant on 2026-11-28',
      persons: 2,
    })
    expect(actorsQueryOf(lifecycle, chosen!.point).source).toEqual({
      kind: 'InsightActorsQuery',
      source: lifecycle,
      day: '2026-11-28',
      status: 'dormant',
    })
  })

  it('reads each person’s display name, first distinct id and count from the answer’s columns', () => {
    const person = (id: string, properties: Record<string, unknown>, distinct_ids: string[]) => ({ id, properties, distinct_ids })
    const rows = actorRowsOf({
      columns: ['person', 'event_count'],
      results: [
        [person('p1', { email: 'ada@example.com', name: 'Ada' }, ['ada']), 3],
        [person('p2', {}, ['bob', 'anon-1']), 1],
      ],
    })
    expect(rows).toEqual([
      { id: 'p1', name: 'ada@example.com', distinctId: 'ada', count: '3' },
      { id: 'p2', name: 'bob', distinctId: 'bob', count: '1' },
    ])
    expect(actorRowsOf({ columns: ['person', 'appearances'], results: [[person('p3', {}, ['cy']), [0, 2]]] })[0]?.count).toBe('0, 2')
  })

  it('says why a formula’s and a path’s numbers have no persons', () => {
    expect(whyNoActors({ ...TREND, trendsFilter: { formula: 'A/B' } })).toMatch(/formula/)
    expect(whyNoActors({ kind: 'PathsQuery' })).toMatch(/path/)
    expect(whyNoActors(TREND)).toBeUndefined()
  })
})
