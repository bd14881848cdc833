// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api'
import { SignInForm } from './SignInForm'

afterEach(cleanup)

async function fill(email: string, password: string) {
  const user = userEvent.setup()
  await user.type(screen.getByLabelText('Email'), email)
  await user.type(screen.getByLabelText('Password'), password)
  return user
}

describe('the sign-in form', () => {
  it('signs in with the email as typed (trimmed) and the password as typed, then moves on', async () => {
    const signIn = vi.fn(async () => ({ success: true }))
    const onSignedIn = vi.fn()
    render(<SignInForm signIn={signIn} onSignedIn={onSignedIn} />)
    const user = await fill('  ada@example.com ', ' secret pass ')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    expect(signIn).toHaveBeenCalledWith('ada@example.com', ' secret pass ')
    expect(onSignedIn).toHaveBeenCalledOnce()
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it("shows the service's own words when it refuses, announced and tied to the fields, and stays on the form", async () => {
    const refusal = new ApiError(400, {
      type: 'validation_error',
      code: 'invalid_credentials',
      detail: 'Invalid email or password.',
      attr: null,
    })
    const onSignedIn = vi.fn()
    render(<SignInForm signIn={() => Promise.reject(refusal)} onSignedIn={onSignedIn} />)
    const user = await fill('ada@example.com', 'wrong')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe('Invalid email or password.')
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true')
    expect(screen.getByRole('form', { name: 'Sign in to Burrow' }).getAttribute('aria-describedby')).toBe(alert.id)
    expect(onSignedIn).not.toHaveBeenCalled()
  })

  it('makes one try of a double click: the button is disabled until the answer comes', async () => {
    let answer: (value: unknown) => void = () => {}
    const signIn = vi.fn(() => new Promise((resolve) => (answer = resolve)))
    render(<SignInForm signIn={signIn} onSignedIn={() => {}} />)
    const user = await fill('ada@example.com', 'pass')
    await user.dblClick(screen.getByRole('button', { name: 'Sign in' }))
    expect(signIn).toHaveBeenCalledOnce()
    expect(screen.getByRole('button', { name: 'Signing in…' })).toHaveProperty('disabled', true)
    answer({ success: true })
    expect(await screen.findByRole('button', { name: 'Sign in' })).toHaveProperty('disabled', false)
  })
})
