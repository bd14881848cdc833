// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { criteriaOf, filtersOf, newCriteria, type Criteria } from '../cohortCriteria'
import { CohortCriteriaEditor } from './CohortCriteriaEditor'

afterEach(cleanup)

const COHORTS = [
  { id: 7, name: 'Paying customers' },
  { id: 9, name: null },
]

/** The editor on a page that keeps its value, and the filters that value saves as. */
function renderEditor(initial: Criteria = newCriteria()) {
  let current = initial
  function Page() {
    const [value, setValue] = useState(initial)
    current = value
    return <CohortCriteriaEditor value={value} cohorts={COHORTS} onChange={setValue} />
  }
  render(<Page />)
  return { filters: () => filtersOf(current), user: userEvent.setup() }
}

const group = (n: number) => screen.getByRole('group', { name: `Group ${n}` })
const condition = (g: number, c: number) => within(group(g)).getByRole('group', { name: `Condition ${c}` })

describe("the cohort editor's conditions", () => {
  it('builds a person-property condition as PostHog stores it, numbers for comparisons and no value for "is set"', async () => {
    const { filters, user } = renderEditor()
    const first = within(condition(1, 1))
    await user.type(first.getByLabelText('Property'), 'plan')
    await user.type(first.getByLabelText('Value'), 'pro')
    expect(filters()).toEqual({
      properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] }] },
    })

    await user.click(within(group(1)).getByRole('button', { name: 'Add condition to group 1' }))
    const second = within(condition(1, 2))
    await user.type(second.getByLabelText('Property'), 'age')
    await user.selectOptions(second.getByLabelText('Operator'), 'gte')
    expect(second.getByLabelText('Value')).toHaveProperty('type', 'number')
    await user.type(second.getByLabelText('Value'), '18')
    await user.selectOptions(first.getByLabelText('Operator'), 'is_set')
    expect(first.queryByLabelText('Value')).toBeNull()
    expect(filters().properties.values).toEqual([
      {
        type: 'AND',
        values: [
          { type: 'person', key: 'plan', operator: 'is_set', value: 'is_set' },
          { type: 'person', key: 'age', operator: 'gte', value: 18 },
        ],
      },
    ])
  })

  it('makes a "performed event in the last N days" condition and an "in cohort" one, each negatable', async () => {
    const { filters, user } = renderEditor()
    const first = within(condition(1, 1))
    await user.selectOptions(first.getByLabelText('Condition type'), 'behavioral')
    await user.type(first.getByLabelText('Event'), 'order placed')
    await user.clear(first.getByLabelText('In the last'))
    await user.type(first.getByLabelText('In the last'), '14')
    await user.selectOptions(first.getByLabelText('Did'), 'not')

    await user.click(screen.getByRole('button', { name: 'Add condition to group 1' }))
    const second = within(condition(1, 2))
    await user.selectOptions(second.getByLabelText('Condition type'), 'cohort')
    // Every cohort offered, a nameless one by its id.
    expect(
      within(second.getByLabelText('Cohort'))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Choose a cohort', 'Paying customers', 'Cohort 9'])
    await user.selectOptions(second.getByLabelText('Cohort'), 'Paying customers')
    await user.selectOptions(within(group(1)).getByLabelText('Matches'), 'OR')

    expect(filters().properties.values).toEqual([
      {
        type: 'OR',
        values: [
          {
            type: 'behavioral',
            key: 'order placed',
            value: 'performed_event',
            event_type: 'events',
            time_value: 14,
            time_interval: 'day',
            negation: true,
          },
          { type: 'cohort', key: 'id', value: 7, negation: false },
        ],
      },
    ])
  })

  it('adds and removes groups and conditions, joining the groups by all or any', async () => {
    const { filters, user } = renderEditor()
    await user.type(within(condition(1, 1)).getByLabelText('Property'), 'a')
    await user.type(within(condition(1, 1)).getByLabelText('Value'), '1')
    await user.click(screen.getByRole('button', { name: 'Add group' }))
    await user.type(within(condition(2, 1)).getByLabelText('Property'), 'b')
    await user.type(within(condition(2, 1)).getByLabelText('Value'), '2')
    await user.selectOptions(screen.getByLabelText('Persons who match'), 'AND')
    expect(filters().properties).toMatchObject({
      type: 'AND',
      values: [{ values: [{ key: 'a', value: '1' }] }, { values: [{ key: 'b', value: '2' }] }],
    })

    await user.click(within(condition(2, 1)).getByRole('button', { name: 'Remove condition 1' }))
    expect(filters().properties.values).toEqual([expect.anything(), { type: 'AND', values: [] }])
    await user.click(screen.getByRole('button', { name: 'Remove group 1' }))
    expect(filters().properties.values).toEqual([{ type: 'AND', values: [] }])
    await user.click(screen.getByRole('button', { name: 'Remove group 1' }))
    expect(filters().properties).toEqual({ type: 'AND', values: [] })
    screen.getByText(/No conditions yet/)
  })

  it('opens a saved cohort as it was, keeping what it does not draw and saving it back unchanged', async () => {
    const saved = {
      properties: {
        type: 'AND',
        values: [
          { type: 'person', key: 'email', operator: 'icontains', value: ['@example.com'] },
          {
            type: 'OR',
            values: [
              {
                type: 'behavioral',
                key: '$pageview',
                value: 'performed_event',
                event_type: 'events',
                time_value: 2,
                time_interval: 'week',
              },
              { type: 'behavioral', key: 'paid', value: 'performed_event_multiple', operator: 'gte', operator_value: 3, time_value: 30 },
              { type: 'cohort', key: 'id', value: 9, negation: true },
            ],
          },
        ],
      },
    }
    const { filters, user } = renderEditor(criteriaOf(saved))
    // A condition under the root is a group of its own: the same persons match.
    expect(within(condition(1, 1)).getByLabelText('Value')).toHaveProperty('value', '@example.com')
    expect(within(condition(2, 1)).getByLabelText('In the last')).toHaveProperty('value', '2')
    expect(within(condition(2, 1)).getByLabelText('Period')).toHaveProperty('value', 'week')
    within(condition(2, 2)).getByText(/does not draw/)
    expect(within(condition(2, 3)).getByLabelText('Membership')).toHaveProperty('value', 'not')
    expect(filters()).toEqual({
      properties: {
        type: 'AND',
        values: [
          { type: 'AND', values: [{ type: 'person', key: 'email', operator: 'icontains', value: '@example.com' }] },
          {
            type: 'OR',
            values: [
              {
                type: 'behavioral',
                key: '$pageview',
                value: 'performed_event',
                event_type: 'events',
                time_value: 2,
                time_interval: 'week',
                negation: false,
              },
              saved.properties.values[1]!.values![1],
              { type: 'cohort', key: 'id', value: 9, negation: true },
            ],
          },
        ],
      },
    })
    // A kind chosen anew starts blank.
    await user.selectOptions(within(condition(2, 3)).getByLabelText('Condition type'), 'person')
    expect(within(condition(2, 3)).getByLabelText('Property')).toHaveProperty('value', '')
  })

  it('reads a cohort without conditions as no groups', () => {
    expect(criteriaOf(null)).toEqual({ type: 'OR', groups: [] })
    expect(criteriaOf({ properties: { type: 'AND', values: [] } })).toEqual({ type: 'AND', groups: [] })
  })
})
