// @vitest-environment happy-dom
import type { Action } from '@burrow/contracts'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { stepSummary } from '../actionSteps'
import { ApiError } from '../api'
import { ActionForm, type ActionChanges } from './ActionForm'

afterEach(cleanup)

const NULL_STEP = {
  event: null,
  properties: null,
  selector: null,
  tag_name: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  url: null,
  url_matching: null,
} as const

const SIGNED_UP: Pick<Action, 'name' | 'description' | 'steps'> = {
  name: 'Signed up',
  description: 'The sign-up form sent',
  steps: [
    { ...NULL_STEP, event: 'signup', properties: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'event' }] },
    { ...NULL_STEP, event: '$autocapture', selector: '#signup', text: 'Join', text_matching: 'exact' },
  ],
}

function show(save: (changes: ActionChanges) => Promise<Action>, action?: typeof SIGNED_UP) {
  const onSaved = vi.fn()
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ActionForm {...(action ? { action } : {})} eventNames={['$pageview', 'signup']} save={save} onSaved={onSaved} />
    </QueryClientProvider>,
  )
  return { user: userEvent.setup(), onSaved }
}

const step = (n: number) => screen.getByRole('group', { name: new RegExp(`^Step ${n}( \\(or\\))?$`) })

describe("an action's form", () => {
  it('sends the steps added, filled in and removed, each blank field as no filter and its matching with it', async () => {
    const save = vi.fn(async () => ({ id: 7 }) as Action)
    const { user, onSaved } = show(save)
    await user.type(screen.getByLabelText('Name'), '  Pricing seen ')
    await user.type(within(step(1)).getByLabelText('URL'), '/pricing')
    await user.selectOptions(within(step(1)).getByLabelText('URL match'), 'regex')
    await user.click(screen.getByRole('button', { name: 'Add step' }))
    await user.click(screen.getByRole('button', { name: 'Add step' }))
    expect(screen.getAllByRole('group', { name: /^Step \d( \(or\))?$/ })).toHaveLength(3)
    // The second step becomes a click on a button saying "Buy", with a property filter.
    const second = step(2)
    await user.clear(within(second).getByLabelText('Event'))
    await user.type(within(second).getByLabelText('Event'), '$autocapture')
    await user.type(within(second).getByLabelText('Element text'), 'Buy')
    await user.type(within(second).getByLabelText('Element tag'), 'button')
    await user.click(within(second).getByRole('button', { name: 'Add property filter to step 2' }))
    const filter = screen.getByRole('group', { name: 'Step 2 property filter 1' })
    await user.type(within(filter).getByLabelText('Event property'), 'price')
    await user.selectOptions(within(filter).getByLabelText('Operator'), 'gt')
    await user.type(within(filter).getByLabelText('Value'), '10')
    await user.click(screen.getByRole('button', { name: 'Remove step 3' }))
    expect(screen.getAllByRole('group', { name: /^Step \d( \(or\))?$/ })).toHaveLength(2)
    await user.click(screen.getByRole('button', { name: 'Create action' }))

    expect(save).toHaveBeenCalledWith({
      name: 'Pricing seen',
      description: '',
      steps: [
        {
          ...NULL_STEP,
          event: '$pageview',
          url: '/pricing',
          url_matching: 'regex',
        },
        {
          ...NULL_STEP,
          event: '$autocapture',
          text: 'Buy',
          text_matching: 'exact',
          tag_name: 'button',
          properties: [{ key: 'price', operator: 'gt', value: 10, type: 'event' }],
        },
      ],
    })
    await vi.waitFor(() => expect(onSaved).toHaveBeenCalledWith({ id: 7 }))
  })

  it('starts from a saved action and keeps what it does not draw (a selector) when saved', async () => {
    const save = vi.fn(async () => ({ id: 3 }) as Action)
    const { user } = show(save, SIGNED_UP)
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('Signed up')
    expect(within(step(1)).getByLabelText<HTMLInputElement>('Event property').value).toBe('plan')
    expect(within(step(2)).getByText('#signup')).toBeTruthy()
    await user.click(screen.getByRole('button', { name: 'Remove step 1' }))
    await user.click(screen.getByRole('button', { name: 'Save action' }))
    expect(save).toHaveBeenCalledWith({
      name: 'Signed up',
      description: 'The sign-up form sent',
      steps: [{ ...NULL_STEP, event: '$autocapture', selector: '#signup', text: 'Join', text_matching: 'exact' }],
    })
  })

  it("keeps the form with the service's words when the name is taken", async () => {
    const refusal = new ApiError(400, {
      type: 'validation_error',
      code: 'unique',
      detail: 'This project already has an action with this name, ID 4',
      attr: 'name',
    })
    const { user, onSaved } = show(() => Promise.reject(refusal))
    await user.type(screen.getByLabelText('Name'), 'Signed up')
    await user.click(screen.getByRole('button', { name: 'Create action' }))
    expect((await screen.findByRole('alert')).textContent).toBe('This project already has an action with this name, ID 4')
    expect(onSaved).not.toHaveBeenCalled()
  })

  it('sums a step up in a line for the list', () => {
    expect(stepSummary({ ...NULL_STEP, event: '$pageview', url: '/pricing', url_matching: 'contains' })).toBe(
      '$pageview where URL contains /pricing',
    )
    expect(stepSummary({ ...NULL_STEP, text: 'Buy', tag_name: 'button' })).toBe('Any event where text is “Buy”, <button>')
  })
})
