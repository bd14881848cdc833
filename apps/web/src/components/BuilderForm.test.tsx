// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_FORM, formOf, queryOf, type BuilderForm as Form } from '../insightQuery'
import { BuilderForm } from './BuilderForm'

afterEach(cleanup)

/** The form as the builder's page holds it: read back from the query each change makes, as from its URL. */
function Page({ onApply }: { onApply: (next: Form) => void }) {
  const [form, setForm] = useState(DEFAULT_FORM)
  return (
    <BuilderForm
      form={form}
      eventNames={[]}
      onApply={(next) => {
        onApply(next)
        setForm(formOf(JSON.parse(JSON.stringify(queryOf(next)))))
      }}
    />
  )
}

/** The query of the form as last applied. */
const lastQuery = (onApply: ReturnType<typeof vi.fn<(next: Form) => void>>) => queryOf(onApply.mock.lastCall![0])

describe("the insight builder's form", () => {
  it('applies a choice at once and typed text on Apply, as the trend PostHog would run', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(<BuilderForm form={DEFAULT_FORM} eventNames={['order placed']} onApply={onApply} />)
    const user = userEvent.setup()
    await user.clear(screen.getByLabelText('Series 1 event'))
    await user.type(screen.getByLabelText('Series 1 event'), 'order placed')
    expect(onApply).not.toHaveBeenCalled()
    await user.selectOptions(screen.getByLabelText('Series 1 counts'), 'sum')
    expect(lastQuery(onApply)).toMatchObject({ series: [{ event: 'order placed', math: 'sum' }] })
    await user.type(screen.getByLabelText('Series 1 property'), 'total')
    await user.type(screen.getByLabelText('Breakdown 1 property'), 'plan')
    await user.selectOptions(screen.getByLabelText('Interval'), 'week')
    await user.click(screen.getByLabelText('Compare to previous period'))
    await user.selectOptions(screen.getByLabelText('Display'), 'ActionsBar')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply)).toEqual({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'order placed', name: 'order placed', math: 'sum', math_property: 'total' }],
      interval: 'week',
      dateRange: { date_from: '-7d' },
      trendsFilter: { display: 'ActionsBar' },
      breakdownFilter: { breakdown_type: 'event', breakdown: 'plan' },
      compareFilter: { compare: true },
    })
  })

  it('turns the series into two funnel steps, with the conversion window and order', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(<BuilderForm form={DEFAULT_FORM} eventNames={[]} onApply={onApply} />)
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Funnels' }))
    expect(screen.getByRole('button', { name: 'Funnels' }).getAttribute('aria-pressed')).toBe('true')
    await user.type(screen.getByLabelText('Step 2 event'), 'order placed')
    await user.clear(screen.getByLabelText('Conversion window'))
    await user.type(screen.getByLabelText('Conversion window'), '2')
    await user.selectOptions(screen.getByLabelText('Window unit'), 'hour')
    await user.selectOptions(screen.getByLabelText('Step order'), 'unordered')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply)).toMatchObject({
      kind: 'FunnelsQuery',
      series: [{ event: '$pageview' }, { event: 'order placed' }],
      funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'hour', funnelOrderType: 'unordered' },
    })
    expect(screen.queryByLabelText('Display')).toBeNull()
  })

  it('asks retention for a start and a return event and a period, with no series', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(<BuilderForm form={DEFAULT_FORM} eventNames={[]} onApply={onApply} />)
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Retention' }))
    expect(screen.queryByLabelText('Series 1 event')).toBeNull()
    await user.clear(screen.getByLabelText('Return event'))
    await user.type(screen.getByLabelText('Return event'), 'order placed')
    await user.selectOptions(screen.getByLabelText('Period'), 'Week')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply)).toMatchObject({
      kind: 'RetentionQuery',
      retentionFilter: { targetEntity: { id: '$pageview' }, returningEntity: { id: 'order placed' }, period: 'Week' },
    })
  })

  it('breaks a trend down by up to three properties with their types, smoothed by the week', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(<Page onApply={onApply} />)
    const user = userEvent.setup()
    // No second row until the first has a property.
    expect(screen.queryByRole('button', { name: 'Add breakdown' })).toBeNull()
    await user.type(screen.getByLabelText('Breakdown 1 property'), '$browser')
    await user.click(screen.getByRole('button', { name: 'Add breakdown' }))
    // A choice made meanwhile keeps the new row; its type, with no property yet, asks nothing.
    await user.selectOptions(screen.getByLabelText('Smoothing'), '7')
    const asked = onApply.mock.calls.length
    await user.selectOptions(screen.getByLabelText('Breakdown 2 type'), 'person')
    expect(onApply.mock.calls.length).toBe(asked)
    await user.type(screen.getByLabelText('Breakdown 2 property'), 'plan')
    await user.click(screen.getByRole('button', { name: 'Add breakdown' }))
    await user.type(screen.getByLabelText('Breakdown 3 property'), '$current_url')
    expect(screen.queryByRole('button', { name: 'Add breakdown' })).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(screen.getByLabelText<HTMLSelectElement>('Breakdown 2 type').value).toBe('person')
    // Bins are for one breakdown; URLs can be normalized.
    expect(screen.queryByLabelText('Bin numeric values')).toBeNull()
    await user.click(screen.getByLabelText(/Normalize URLs/))
    expect(lastQuery(onApply)).toMatchObject({
      trendsFilter: { display: 'ActionsLineGraph', smoothingIntervals: 7 },
      breakdownFilter: {
        breakdowns: [
          { property: '$browser', type: 'event' },
          { property: 'plan', type: 'person' },
          { property: '$current_url', type: 'event', normalize_url: true },
        ],
      },
    })
    await user.click(screen.getByRole('button', { name: 'Remove breakdown 2' }))
    await user.click(screen.getByRole('button', { name: 'Remove breakdown 2' }))
    await user.click(screen.getByLabelText('Bin numeric values'))
    await user.clear(screen.getByLabelText('Bins'))
    await user.type(screen.getByLabelText('Bins'), '4')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser', breakdown_histogram_bin_count: 4 })
    // Smoothing is by days: an hourly trend has none.
    await user.selectOptions(screen.getByLabelText('Interval'), 'hour')
    expect(screen.queryByLabelText('Smoothing')).toBeNull()
    expect(lastQuery(onApply).trendsFilter).toEqual({ display: 'ActionsLineGraph' })
  })

  it('offers a funnel one breakdown, and no bins or smoothing', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    const trend = {
      ...DEFAULT_FORM,
      breakdowns: [
        { property: 'plan', type: 'person' as const },
        { property: '$browser', type: 'event' as const },
      ],
    }
    render(<BuilderForm form={trend} eventNames={[]} onApply={onApply} />)
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Funnels' }))
    expect(screen.getByLabelText<HTMLInputElement>('Breakdown 1 property').value).toBe('plan')
    expect(screen.queryByLabelText('Breakdown 2 property')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Add breakdown' })).toBeNull()
    expect(screen.queryByLabelText('Bin numeric values')).toBeNull()
    expect(screen.queryByLabelText('Smoothing')).toBeNull()
    expect(lastQuery(onApply).breakdownFilter).toEqual({ breakdown_type: 'person', breakdown: 'plan' })
  })

  it('builds paths of the ticked event types, a start point and a step limit, with no series or interval', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(<Page onApply={onApply} />)
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Paths' }))
    expect(screen.queryByLabelText('Series 1 event')).toBeNull()
    expect(screen.queryByLabelText('Interval')).toBeNull()
    expect(screen.getByLabelText<HTMLInputElement>('Page views').checked).toBe(true)
    expect(screen.getByLabelText<HTMLInputElement>('Steps').value).toBe('5')
    await user.click(screen.getByLabelText('Custom events'))
    await user.type(screen.getByLabelText('Start point (URL, screen or event)'), '/home')
    await user.clear(screen.getByLabelText('Steps'))
    await user.type(screen.getByLabelText('Steps'), '8')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply)).toEqual({
      kind: 'PathsQuery',
      dateRange: { date_from: '-7d' },
      pathsFilter: { includeEventTypes: ['$pageview', 'custom_event'], startPoint: '/home', stepLimit: 8 },
    })
    await user.click(screen.getByLabelText('Page views'))
    await user.click(screen.getByLabelText('Custom events'))
    expect(screen.getByText('None ticked: every event is a step.')).toBeTruthy()
    expect(lastQuery(onApply).pathsFilter).toMatchObject({ includeEventTypes: [] })
  })

  it("shows a saved query's breakdowns, bins and smoothing again", () => {
    const saved = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      interval: 'day',
      trendsFilter: { smoothingIntervals: 28 },
      breakdownFilter: { breakdown_type: 'person', breakdown: 'age', breakdown_histogram_bin_count: 6 },
    }
    render(<BuilderForm form={formOf(saved)} eventNames={[]} onApply={vi.fn()} />)
    expect(screen.getByLabelText<HTMLInputElement>('Breakdown 1 property').value).toBe('age')
    expect(screen.getByLabelText<HTMLSelectElement>('Breakdown 1 type').value).toBe('person')
    expect(screen.getByLabelText<HTMLInputElement>('Bin numeric values').checked).toBe(true)
    expect(screen.getByLabelText<HTMLInputElement>('Bins').value).toBe('6')
    expect(screen.getByLabelText<HTMLSelectElement>('Smoothing').value).toBe('28')
  })

  it('shows the query of a new URL when it changes under the form', () => {
    const onApply = vi.fn<(next: Form) => void>()
    const { rerender } = render(<BuilderForm form={DEFAULT_FORM} eventNames={[]} onApply={onApply} />)
    rerender(
      <BuilderForm
        form={{ ...DEFAULT_FORM, series: [{ event: 'signed up', math: 'dau', property: '' }] }}
        eventNames={[]}
        onApply={onApply}
      />,
    )
    expect(screen.getByLabelText<HTMLInputElement>('Series 1 event').value).toBe('signed up')
    expect(screen.getByLabelText<HTMLSelectElement>('Series 1 counts').value).toBe('dau')
  })

  it("charts one of the project's actions as a series, named in the select, and an event again", async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(
      <BuilderForm
        form={DEFAULT_FORM}
        eventNames={[]}
        actions={[
          { id: 4, name: 'Signed up' },
          { id: 9, name: 'Pricing seen' },
        ]}
        onApply={onApply}
      />,
    )
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Series 1 is'), 'Action: Pricing seen')
    expect(lastQuery(onApply)).toMatchObject({ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: 9 }] })
    expect(screen.queryByLabelText('Series 1 event')).toBeNull()
    await user.selectOptions(screen.getByLabelText('Series 1 counts'), 'dau')
    expect(lastQuery(onApply).series).toEqual([{ kind: 'ActionsNode', id: 9, math: 'dau' }])
    await user.selectOptions(screen.getByLabelText('Series 1 is'), 'An event')
    expect(lastQuery(onApply).series).toEqual([{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' }])
  })

  it('keeps an action a link names that is not listed, by its id', () => {
    const saved = formOf({
      kind: 'FunnelsQuery',
      series: [
        { kind: 'ActionsNode', id: 31 },
        { kind: 'EventsNode', event: 'paid' },
      ],
    })
    render(<BuilderForm form={saved} eventNames={[]} onApply={vi.fn()} />)
    expect(screen.getByLabelText<HTMLSelectElement>('Step 1 is').selectedOptions[0]!.textContent).toBe('Action #31')
    expect(screen.getByLabelText<HTMLInputElement>('Step 2 event').value).toBe('paid')
  })

  it('breaks a trend down by chosen cohorts and all users, then by a HogQL expression, which a funnel keeps', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    function WithCohorts() {
      const [form, setForm] = useState(DEFAULT_FORM)
      return (
        <BuilderForm
          form={form}
          eventNames={[]}
          cohorts={[
            { id: 5, name: 'Paying' },
            { id: 6, name: 'Trial' },
          ]}
          onApply={(next) => {
            onApply(next)
            setForm(formOf(JSON.parse(JSON.stringify(queryOf(next)))))
          }}
        />
      )
    }
    render(<WithCohorts />)
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Breakdown 1 type'), 'Cohort')
    const choices = screen.getByRole('group', { name: 'Breakdown 1 cohorts' })
    await user.click(within(choices).getByLabelText('Trial'))
    await user.click(within(choices).getByLabelText('All users'))
    expect(lastQuery(onApply).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [6, 'all'] })
    // Cohorts break down alone: no second breakdown, no bins.
    expect(screen.queryByRole('button', { name: 'Add breakdown' })).toBeNull()
    expect(screen.queryByLabelText('Bin numeric values')).toBeNull()
    await user.click(within(choices).getByLabelText('Trial'))
    expect(lastQuery(onApply).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: ['all'] })

    await user.selectOptions(screen.getByLabelText('Breakdown 1 type'), 'HogQL expression')
    expect(lastQuery(onApply).breakdownFilter).toBeUndefined()
    await user.type(screen.getByLabelText('Breakdown 1 HogQL expression'), 'person.properties.plan')
    await user.click(screen.getByRole('button', { name: 'Apply' }))
    expect(lastQuery(onApply).breakdownFilter).toEqual({ breakdown_type: 'hogql', breakdown: 'person.properties.plan' })

    await user.click(screen.getByRole('button', { name: 'Funnels' }))
    const funnelTypes = [...screen.getByLabelText<HTMLSelectElement>('Breakdown 1 type').options].map((o) => o.text)
    expect(funnelTypes).toEqual(['Event property', 'Person property', 'HogQL expression'])
    expect(lastQuery(onApply)).toMatchObject({
      kind: 'FunnelsQuery',
      breakdownFilter: { breakdown_type: 'hogql', breakdown: 'person.properties.plan' },
    })
  })

  it('starts or returns a retention with one of the actions', async () => {
    const onApply = vi.fn<(next: Form) => void>()
    render(
      <BuilderForm
        form={{ ...DEFAULT_FORM, kind: 'RetentionQuery' }}
        eventNames={[]}
        actions={[{ id: 4, name: 'Signed up' }]}
        onApply={onApply}
      />,
    )
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Start is'), 'Action: Signed up')
    expect(screen.queryByLabelText('Start event')).toBeNull()
    expect(lastQuery(onApply).retentionFilter).toMatchObject({
      targetEntity: { id: 4, type: 'actions' },
      returningEntity: { id: '$pageview', type: 'events' },
    })
  })
})
