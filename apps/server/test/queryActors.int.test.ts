import { describe, expect, it } from 'vitest'
import { useCaseProjects, type SentEvent } from './queryFixture'

/**
 * PostHog's ActorsQuery: the persons list, and the persons behind a point of an insight (its
 * persons modal). Cases from PostHog's tests name the test they come from
 * (posthog/hogql_queries/test/test_actors_query_runner.py, insights/test/test_insight_actors_query_runner.py,
 * trends/test/test_trends_actors…, funnels/test/test_funnel_persons.py), with its events and the persons it asserts.
 */

const { projectWith } = useCaseProjects()

/** PostHog's _create_random_persons: ten identified persons, each with one event of its own. */
function randomPersons(tag: string): SentEvent[] {
  return Array.from({ length: 10 }, (_, index) => ({
    event: `clicky-${index}`,
    distinct_id: `id-${tag}-${index}`,
    timestamp: new Date(Date.UTC(2024, 0, 2, 12, index)).toISOString(),
    properties: {
      $set: { email: `jacob${index}@${tag}.posthog.com`, name: `Mr Jacob ${tag}`, random_uuid: tag, index },
    },
  }))
}

const persons = (extra: Record<string, unknown> = {}) => ({ kind: 'ActorsQuery', ...extra })

describe('test_actors_query_runner.py: the persons list', () => {
  it('test_default_persons_query: every person, as PostHog’s object, with the default columns', async () => {
    const project = await projectWith(randomPersons('RANDOM_TEST_ID::a'))
    const res = await project.query(persons())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.columns).toEqual(['person', 'id', 'person.$delete'])
    expect(res.body.results).toHaveLength(10)
    const [person, id, deleted] = res.body.results[0]
    expect(Object.keys(person).sort()).toEqual(['created_at', 'distinct_ids', 'id', 'is_identified', 'properties'])
    expect(person.properties.random_uuid).toBe('RANDOM_TEST_ID::a')
    expect(person.distinct_ids.length).toBeGreaterThan(0)
    expect(id).toBe(person.id)
    expect(deleted).toBe(1)
    expect(res.body).toMatchObject({ hasMore: false, limit: 100, offset: 0, missing_actors_count: 0 })
    expect(res.body.types).toHaveLength(3)
  })

  it('test_persons_query_search_email: the email matches whatever its case', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    for (const search of ['jacob4@u1.posthog', 'JACOB4@U1.POSTHOG']) {
      const res = await project.query(persons({ search }))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.results.map((r: any) => r[0].properties.email)).toEqual(['jacob4@u1.posthog.com'])
    }
  })

  it('test_persons_query_search_name: the name matches whatever its case', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    for (const search of ['Mr Jacob u1', 'MR JACOB U1']) {
      const res = await project.query(persons({ search }))
      expect(res.body.results).toHaveLength(10)
      expect(res.body.results.every((r: any) => r[0].properties.random_uuid === 'u1')).toBe(true)
    }
  })

  it('test_persons_query_search_distinct_id: a distinct id finds its person', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    const res = await project.query(persons({ search: 'id-u1-9' }))
    expect(res.body.results.map((r: any) => r[0].distinct_ids)).toEqual([['id-u1-9']])
  })

  it('test_persons_query_order_by: a property column, ordered by it', async () => {
    const project = await projectWith(randomPersons('u1'))
    const res = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'] }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.columns).toEqual(['properties.email'])
    expect(res.body.results[0]).toEqual(['jacob9@u1.posthog.com'])
  })

  it('test_persons_query_limit: pages of limit rows from offset, with hasMore', async () => {
    const project = await projectWith(randomPersons('u1'))
    const first = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1 }))
    expect(first.body.results).toEqual([['jacob9@u1.posthog.com']])
    expect(first.body.hasMore).toBe(true)
    const second = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1, offset: 1 }))
    expect(second.body.results).toEqual([['jacob8@u1.posthog.com']])
    expect(second.body.hasMore).toBe(true)
    const last = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 5, offset: 5 }))
    expect(last.body.results.map((r: any) => r[0])).toEqual([4, 3, 2, 1, 0].map((i) => `jacob${i}@u1.posthog.com`))
    expect(last.body.hasMore).toBe(false)
  })

  it('orders by person (the email) and answers created_at, newest first by default', async () => {
    const project = await projectWith(randomPersons('u1'))
    const byPerson = await project.query(persons({ select: ['person', 'properties.index'], orderBy: ['person DESC'] }))
    expect(byPerson.body.results.map((r: any) => r[1])).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    const withCreated = await project.query(persons({ select: ['id', 'created_at'] }))
    const created = withCreated.body.results.map((r: any) => r[1])
    expect([...created].sort().reverse()).toEqual(created)
    expect(created.every((c: string) => !Number.isNaN(Date.parse(c)))).toBe(true)
  })
})

describe('ActorsQuery refusals', () => {
  it.each([
    ['a column it does not answer', { select: ['count()'] }, 'query__select__0'],
    ['a HogQL ordering', { orderBy: ['length(properties.email) DESC'] }, 'query__orderBy__0'],
    ['person property filters', { properties: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }] }, 'query__properties'],
    ['a page over a thousand rows', { limit: 1001 }, 'query__limit'],
    ['event_count without an insight', { select: ['person', 'event_count'] }, 'query__select__1'],
  ])('refuses %s, naming the field', async (_name, fields, attr) => {
    const project = await projectWith([])
    const res = await project.query(persons(fields))
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe(attr)
  })
})
