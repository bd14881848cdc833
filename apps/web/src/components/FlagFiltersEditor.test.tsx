// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { filtersOf, formOf, problemsOf, type FlagForm } from '../flagFilters'
import { FlagFiltersEditor } from './FlagFiltersEditor'

afterEach(cleanup)

/** The editor on a page that keeps its value, the filters that value saves as, and what is wrong with it. */
function renderEditor(filters: Record<string, unknown> = { groups: [{ properties: [], rollout_percentage: 100 }] }) {
  let current: FlagForm = formOf(filters)
  function Page() {
    const [value, setValue] = useState(current)
    current = value
    return <FlagFiltersEditor value={value} onChange={setValue} />
  }
  render(<Page />)
  return { filters: () => filtersOf(current), problems: () => problemsOf(current), user: userEvent.setup() }
}

const set = (n: number) => screen.getByRole('group', { name: `Condition set ${n}` })
const variant = (n: number) => screen.getByRole('group', { name: `Variant ${n}` })

describe("the flag form's release conditions", () => {
  it('builds condition sets of person-property conditions, each with its rollout, as PostHog stores them', async () => {
    const { filters, user } = renderEditor()
    await user.click(screen.getByRole('button', { name: 'Add condition to set 1' }))
    const first = within(within(set(1)).getByRole('group', { name: 'Condition 1' }))
    await user.type(first.getByLabelText('Person property'), 'plan')
    await user.type(first.getByLabelText('Value'), 'pro')
    const rollout = within(set(1)).getByLabelText('Roll out to (% of matching users)')
    await user.clear(rollout)
    await user.type(rollout, '30')

    await user.click(screen.getByRole('button', { name: 'Add condition set' }))
    await user.click(screen.getByRole('button', { name: 'Add condition to set 2' }))
    const second = within(within(set(2)).getByRole('group', { name: 'Condition 1' }))
    await user.type(second.getByLabelText('Person property'), 'age')
    await user.selectOptions(second.getByLabelText('Operator'), 'gte')
    expect(second.getByLabelText('Value')).toHaveProperty('type', 'number')
    await user.type(second.getByLabelText('Value'), '18')

    expect(filters()).toMatchObject({
      groups: [
        { properties: [{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }], rollout_percentage: 30, variant: null },
        { properties: [{ key: 'age', type: 'person', operator: 'gte', value: 18 }], rollout_percentage: 100, variant: null },
      ],
      multivariate: null,
      payloads: {},
    })

    await user.selectOptions(second.getByLabelText('Operator'), 'is_set')
    expect(second.queryByLabelText('Value')).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Remove condition set 1' }))
    expect(filters().groups).toEqual([
      { properties: [{ key: 'age', type: 'person', operator: 'is_set', value: 'is_set' }], rollout_percentage: 100, variant: null },
    ])
  })

  it('keeps a condition it does not draw (a cohort) and the fields it does not know, unchanged', () => {
    const stored = {
      groups: [
        {
          properties: [
            { key: 'id', type: 'cohort', value: 4 },
            { key: 'email', type: 'person', operator: 'exact', value: ['a@b.c'] },
          ],
          rollout_percentage: 50,
          description: 'beta',
        },
      ],
      aggregation_group_type_index: null,
    }
    const { filters } = renderEditor(stored)
    expect(screen.getByText(/does not draw/)).toBeTruthy()
    expect(within(set(1)).getByLabelText<HTMLInputElement>('Value').value).toBe('a@b.c')
    expect(filters()).toMatchObject({
      aggregation_group_type_index: null,
      groups: [
        {
          description: 'beta',
          rollout_percentage: 50,
          properties: [
            { key: 'id', type: 'cohort', value: 4 },
            { key: 'email', type: 'person', operator: 'exact', value: 'a@b.c' },
          ],
        },
      ],
    })
  })
})

describe("the flag form's variants and payloads", () => {
  it('splits a flag 50/50 between two variants, each with a JSON payload, and overrides a set to one', async () => {
    const { filters, problems, user } = renderEditor()
    await user.click(screen.getByRole('button', { name: 'Add variant' }))
    expect(within(variant(1)).getByLabelText<HTMLInputElement>('Variant key').value).toBe('control')
    expect(within(variant(2)).getByLabelText<HTMLInputElement>('Rollout (%)').value).toBe('50')
    const key = within(variant(2)).getByLabelText('Variant key')
    await user.clear(key)
    await user.type(key, 'blue')
    await user.type(screen.getByLabelText('Payload of blue'), '{{"color": "blue"}')
    await user.selectOptions(within(set(1)).getByLabelText('Variant'), 'blue')
    expect(problems()).toEqual([])
    expect(filters()).toMatchObject({
      groups: [{ properties: [], rollout_percentage: 100, variant: 'blue' }],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'blue', rollout_percentage: 50 },
        ],
      },
      payloads: { blue: '{"color": "blue"}' },
    })

    // Removing the variant removes its override and its payload.
    await user.click(screen.getByRole('button', { name: 'Remove variant 2' }))
    expect(filters().groups).toEqual([{ properties: [], rollout_percentage: 100, variant: null }])
    expect(filters().payloads).toEqual({})
  })

  it('says before saving that the split must add up to 100, that keys must differ and that a payload must be JSON', async () => {
    const { problems, user } = renderEditor()
    await user.click(screen.getByRole('button', { name: 'Add variant' }))
    const rollout = within(variant(1)).getByLabelText('Rollout (%)')
    await user.clear(rollout)
    await user.type(rollout, '60')
    expect(problems()).toEqual(["The variants' rollout percentages add up to 110%, not 100%."])
    const key = within(variant(2)).getByLabelText('Variant key')
    await user.clear(key)
    await user.type(key, 'control')
    expect(problems()).toContain('Two variants have the same key.')

    await user.click(screen.getByRole('button', { name: 'Remove variant 2' }))
    await user.click(screen.getByRole('button', { name: 'Remove variant 1' }))
    // Without variants, the flag's one payload is the one sent with true.
    await user.type(screen.getByLabelText('Payload when true'), '{{not json')
    expect(problems()).toEqual(['The payload of the flag is not valid JSON.'])
  })

  it('reads a stored multivariate flag with its payloads', () => {
    renderEditor({
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'a', name: 'A', rollout_percentage: 100 }] },
      payloads: { a: '[1,2]' },
    })
    expect(within(variant(1)).getByLabelText<HTMLInputElement>('Variant name').value).toBe('A')
    expect(screen.getByLabelText<HTMLTextAreaElement>('Payload of a').value).toBe('[1,2]')
  })
})
