import { beforeAll, describe, expect, it } from 'vitest'
import { useCaseProjects, type CaseProject, type SentEvent } from './queryFixture'

/**
 * ActionsNode series: the events of one of the project's actions (PostHog's actions resource)
 * wherever a series or step is taken, each step matching an event, a URL, an element's href,
 * text or tag, and property filters, the steps ORed.
 */

const cases = useCaseProjects()

const SIGN_UP_BUTTON =
  'button.cta:attr__href="/signup"href="/signup"nth-child="1"nth-of-type="1"text="Sign up now";div.hero:nth-child="1"nth-of-type="1"'
const OTHER_LINK = 'a:attr__href="/docs"href="/docs"nth-child="2"nth-of-type="1"text="Docs";div:nth-child="1"nth-of-type="1"'

const at = (day: number, hour = 12) => `2024-01-0${day}T${String(hour).padStart(2, '0')}:00:00Z`
const view = (who: string, day: number, url: string): SentEvent => ({
  event: '$pageview',
  distinct_id: who,
  timestamp: at(day),
  properties: { $current_url: url },
})
const click = (who: string, day: number, chain: string): SentEvent => ({
  event: '$autocapture',
  distinct_id: who,
  timestamp: at(day, 13),
  properties: { $event_type: 'click', $elements_chain: chain },
})
const purchase = (who: string, day: number, amount: number): SentEvent => ({
  event: 'purchase',
  distinct_id: who,
  timestamp: at(day, 14),
  properties: { amount },
})

const EVENTS: SentEvent[] = [
  view('ann', 1, 'https://shop.example/pricing'),
  view('ann', 2, 'https://shop.example/pricing?plan=pro'),
  view('bob', 2, 'https://shop.example/'),
  view('bob', 3, 'https://shop.example/PRICING'),
  view('cid', 3, 'https://shop.example/pricing'),
  click('ann', 2, SIGN_UP_BUTTON),
  click('bob', 3, OTHER_LINK),
  click('cid', 4, SIGN_UP_BUTTON),
  purchase('ann', 3, 80),
  purchase('bob', 4, 20),
  purchase('cid', 5, 120),
]
const RANGE = { date_from: '2024-01-01', date_to: '2024-01-07' }
const DAYS = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07']

const urlOf = (e: SentEvent) => (typeof e.properties.$current_url === 'string' ? e.properties.$current_url : '')

/** Per day of the range, how many of `events` happened. */
const perDay = (events: SentEvent[]) => DAYS.map((d) => events.filter((e) => e.timestamp.startsWith(d)).length)

let project: CaseProject
const actionIds: Record<string, number> = {}

async function createAction(body: Record<string, unknown>, owner = project): Promise<{ status: number; body: any }> {
  const res = await cases.service.api(owner.account, `/api/projects/${owner.account.projectId}/actions/`, {
    method: 'POST',
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

async function ok(query: Record<string, unknown>) {
  const res = await project.query(query)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

const trend = (series: unknown[], extra: Record<string, unknown> = {}) => ok({ kind: 'TrendsQuery', series, dateRange: RANGE, ...extra })
const actionNode = (name: string, extra: Record<string, unknown> = {}) => ({ kind: 'ActionsNode', id: actionIds[name], ...extra })

beforeAll(async () => {
  project = await cases.projectWith(EVENTS)
  const actions: Record<string, unknown[]> = {
    'Pricing views': [{ event: '$pageview', url: '/pricing' }],
    'Exact pricing': [{ event: '$pageview', url: 'https://shop.example/pricing', url_matching: 'exact' }],
    'Pricing, any case': [{ event: '$pageview', url: '(?i)/pricing$', url_matching: 'regex' }],
    'Sign-up button': [{ event: '$autocapture', href: '/signup', tag_name: 'button' }],
    'Sign-up text': [{ event: '$autocapture', text: 'Sign up', text_matching: 'contains' }],
    'Big purchase or sign-up click': [
      { event: 'purchase', properties: [{ key: 'amount', value: 50, operator: 'gt', type: 'event' }] },
      { event: '$autocapture', href: '/signup' },
    ],
    'Any pricing event': [{ url: 'pricing' }, { url: '/pricing' }],
  }
  for (const [name, steps] of Object.entries(actions)) {
    const created = await createAction({ name, steps })
    if (created.status !== 201) throw new Error(`creating ${name} answered ${created.status}: ${JSON.stringify(created.body)}`)
    actionIds[name] = created.body.id
  }
}, 120_000)

describe('TrendsQuery with ActionsNode series', () => {
  it('counts the events of any step, each event once, named and typed as the action', async () => {
    const body = await trend([actionNode('Big purchase or sign-up click')])
    const matching = EVENTS.filter(
      (e) =>
        (e.event === 'purchase' && Number(e.properties.amount) > 50) ||
        (e.event === '$autocapture' && e.properties.$elements_chain === SIGN_UP_BUTTON),
    )
    expect(body.results[0].data).toEqual(perDay(matching))
    expect(body.results[0]).toMatchObject({
      label: 'Big purchase or sign-up click',
      action: { id: actionIds['Big purchase or sign-up click'], type: 'actions', name: 'Big purchase or sign-up click' },
    })
    // An event matching two steps of an action counts once.
    const twice = await trend([actionNode('Any pricing event')])
    expect(twice.results[0].data).toEqual(perDay(EVENTS.filter((e) => urlOf(e).includes('pricing'))))
  })

  it('matches a URL as it contains the step’s, equals it, or matches its regex', async () => {
    const url = urlOf
    const views = EVENTS.filter((e) => e.event === '$pageview')
    const contains = await trend([actionNode('Pricing views')])
    expect(contains.results[0].data).toEqual(perDay(views.filter((e) => url(e).includes('/pricing'))))
    const exact = await trend([actionNode('Exact pricing')])
    expect(exact.results[0].data).toEqual(perDay(views.filter((e) => url(e) === 'https://shop.example/pricing')))
    const regex = await trend([actionNode('Pricing, any case')])
    expect(regex.results[0].data).toEqual(perDay(views.filter((e) => /\/pricing$/i.test(url(e)))))
  })

  it('matches a clicked element by href and tag, or by its text', async () => {
    const signUps = perDay(EVENTS.filter((e) => e.properties.$elements_chain === SIGN_UP_BUTTON))
    expect(signUps.reduce((a, b) => a + b, 0)).toBe(2)
    expect((await trend([actionNode('Sign-up button')])).results[0].data).toEqual(signUps)
    expect((await trend([actionNode('Sign-up text')])).results[0].data).toEqual(signUps)
    // A property filter on $elements_chain reads the events' elements, as PostHog's does.
    const byChain = await trend([
      {
        kind: 'EventsNode',
        event: '$autocapture',
        properties: [{ key: '$elements_chain', value: 'signup', operator: 'icontains', type: 'event' }],
      },
    ])
    expect(byChain.results[0].data).toEqual(signUps)
  })

  it('applies the node’s own filters and maths on top of the action, beside an event series', async () => {
    const body = await trend([
      actionNode('Big purchase or sign-up click', {
        properties: [{ key: '$event_type', value: 'click', operator: 'exact', type: 'event' }],
      }),
      actionNode('Pricing views', { math: 'dau' }),
      { kind: 'EventsNode', event: 'purchase' },
    ])
    expect(body.results[0].count).toBe(2)
    expect(body.results[1].data).toEqual(
      DAYS.map(
        (d) => new Set(EVENTS.filter((e) => e.timestamp.startsWith(d) && urlOf(e).includes('/pricing')).map((e) => e.distinct_id)).size,
      ),
    )
    expect(body.results[2]).toMatchObject({ label: 'purchase', action: { id: 'purchase', type: 'events' } })
  })

  it('lists the persons behind a point of an action', async () => {
    const series = [actionNode('Pricing views')]
    const res = await project.query({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', day: '2024-01-03', source: { kind: 'TrendsQuery', series, dateRange: RANGE } },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // bob's /PRICING does not contain /pricing; cid's view does.
    expect(res.body.results).toHaveLength(1)
  })
})

describe('ActionsNode in the other kinds', () => {
  it('funnels: a step of an action, named and typed as the action', async () => {
    const body = await ok({
      kind: 'FunnelsQuery',
      series: [actionNode('Pricing views'), actionNode('Big purchase or sign-up click')],
      dateRange: RANGE,
    })
    // ann: pricing on the 1st, a sign-up click on the 2nd; cid: pricing on the 3rd, a click on the 4th; bob never views /pricing.
    expect(body.results.map((s: any) => [s.name, s.action_id, s.type, s.count])).toEqual([
      ['Pricing views', actionIds['Pricing views'], 'actions', 2],
      ['Big purchase or sign-up click', actionIds['Big purchase or sign-up click'], 'actions', 2],
    ])
  })

  it('stickiness and lifecycle: an action of one event step answers as that event with its filter', async () => {
    const asEvent = { kind: 'EventsNode', event: 'purchase', properties: [{ key: 'amount', value: 50, operator: 'gt', type: 'event' }] }
    const single = await createAction({ name: 'Big purchase', steps: [{ event: 'purchase', properties: asEvent.properties }] })
    expect(single.status).toBe(201)
    const asAction = { kind: 'ActionsNode', id: single.body.id }
    for (const kind of ['StickinessQuery', 'LifecycleQuery']) {
      const byAction = await ok({ kind, series: [asAction], dateRange: RANGE })
      const byEvent = await ok({ kind, series: [asEvent], dateRange: RANGE })
      expect(
        byAction.results.map((r: any) => r.data),
        kind,
      ).toEqual(byEvent.results.map((r: any) => r.data))
      expect(byAction.results[0].action).toMatchObject({ id: single.body.id, name: 'Big purchase', type: 'actions' })
    }
  })

  it('retention: an action as the target entity', async () => {
    const body = await ok({
      kind: 'RetentionQuery',
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' },
      retentionFilter: {
        period: 'Day',
        totalIntervals: 5,
        targetEntity: { id: actionIds['Pricing views'], type: 'actions' },
        returningEntity: { id: 'purchase', type: 'events' },
      },
    })
    // ann views /pricing on the 1st and buys on the 3rd; cid views it on the 3rd and buys on the 5th.
    expect(body.results[0].values.map((v: any) => v.count)).toEqual([1, 0, 1, 0, 0])
    expect(body.results[2].values.slice(0, 3).map((v: any) => v.count)).toEqual([1, 0, 1])
  })
})

describe('ActionsNode refusals', () => {
  it.each([
    ['an ActionsNode without an id', { kind: 'ActionsNode' }],
    ['an action that does not exist', { kind: 'ActionsNode', id: 987654321 }],
  ])('refuses %s with a 400 naming the series', async (_name, node) => {
    const res = await project.query({ kind: 'TrendsQuery', series: [node], dateRange: RANGE })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'query__series__0__id' })
  })

  it('refuses a query whose statement would be too large to run (an action of many steps and filters), and the next query runs', async () => {
    const filters = Array.from({ length: 50 }, (_, i) => ({ key: `key_${i}`, value: `value ${i}`, operator: 'icontains', type: 'event' }))
    const huge = await createAction({
      name: 'Every step and filter',
      steps: Array.from({ length: 50 }, (_, i) => ({ event: `event ${i}`, url: `/page/${i}`, properties: filters })),
    })
    expect(huge.status, JSON.stringify(huge.body)).toBe(201)
    const res = await project.query({
      kind: 'FunnelsQuery',
      series: Array.from({ length: 20 }, () => ({ kind: 'ActionsNode', id: huge.body.id })),
      dateRange: RANGE,
    })
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400)
    expect(res.body.detail).toMatch(/too large/)
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT|JSONExtract/)
    expect((await trend([actionNode('Pricing views')])).results[0].count).toBeGreaterThan(0)
  })

  it('refuses another project’s action, a deleted one, and one with a CSS selector step', async () => {
    const other = await cases.projectWith([])
    const theirs = await createAction({ name: 'Theirs', steps: [{ event: 'purchase' }] }, other)
    const deleted = await createAction({ name: 'Gone', steps: [{ event: 'purchase' }] })
    await cases.service.api(project.account, `/api/projects/${project.account.projectId}/actions/${deleted.body.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ deleted: true }),
    })
    const selector = await createAction({ name: 'By selector', steps: [{ event: '$autocapture', selector: 'div > button.cta' }] })
    for (const id of [theirs.body.id, deleted.body.id, selector.body.id]) {
      const res = await project.query({ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id }], dateRange: RANGE })
      expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body.attr).toBe('query__series__0__id')
    }
  })
})
