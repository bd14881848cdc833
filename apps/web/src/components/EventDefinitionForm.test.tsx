// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api'
import { EventDefinitionForm, tagsOf, type DefinitionChanges } from './EventDefinitionForm'

afterEach(cleanup)

const SIGNUP = {
  id: '0190a1b2-0000-7000-8000-000000000001',
  name: 'signup',
  description: 'A new account',
  tags: ['growth'],
  verified: false,
}

function show(save: (changes: DefinitionChanges) => Promise<unknown>, onSaved = () => {}) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <EventDefinitionForm definition={SIGNUP} save={save} onSaved={onSaved} />
    </QueryClientProvider>,
  )
  return userEvent.setup()
}

describe("an event definition's form", () => {
  it('reads tags separated by commas, trimmed, without empty ones or repeats', () => {
    expect(tagsOf(' growth, ,checkout,growth ,')).toEqual(['growth', 'checkout'])
    expect(tagsOf('')).toEqual([])
  })

  it('starts from the definition and saves the description, tags and verification together', async () => {
    const save = vi.fn(async () => ({}))
    const onSaved = vi.fn()
    const user = show(save, onSaved)
    expect(screen.getByLabelText<HTMLTextAreaElement>('Description').value).toBe('A new account')
    expect(screen.getByLabelText<HTMLInputElement>('Tags (separated by commas)').value).toBe('growth')
    await user.clear(screen.getByLabelText('Description'))
    await user.type(screen.getByLabelText('Description'), 'Someone made an account')
    await user.type(screen.getByLabelText('Tags (separated by commas)'), ', checkout, growth')
    await user.click(screen.getByRole('checkbox', { name: /Verified/ }))
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(save).toHaveBeenCalledWith({ description: 'Someone made an account', tags: ['growth', 'checkout'], verified: true })
    await vi.waitFor(() => expect(onSaved).toHaveBeenCalledOnce())
  })

  it("keeps the form open with the service's words when the save is refused", async () => {
    const refusal = new ApiError(400, {
      type: 'validation_error',
      code: 'max_length',
      detail: 'Ensure this field has no more than 255 characters.',
      attr: 'tags',
    })
    const onSaved = vi.fn()
    const user = show(() => Promise.reject(refusal), onSaved)
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect((await screen.findByRole('alert')).textContent).toBe('Ensure this field has no more than 255 characters.')
    expect(onSaved).not.toHaveBeenCalled()
  })
})
