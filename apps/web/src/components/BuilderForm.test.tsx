// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_FORM, queryOf, type BuilderForm as Form } from '../insightQuery'
import { BuilderForm } from './BuilderForm'

afterEach(cleanup)

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
    await user.type(screen.getByLabelText('Breakdown by event property'), 'plan')
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
})
