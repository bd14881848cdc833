// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api'
import { configToSend, PluginConfigForm, type ConfigField } from './PluginConfigForm'

afterEach(cleanup)

const MASK = '**************** POSTHOG SECRET FIELD ****************'

/** Fields as PostHog's plugin.json declares them, one of each kind. */
const SCHEMA: ConfigField[] = [
  { key: 'url', name: 'Webhook URL', type: 'string', required: true },
  { key: 'secret', name: 'Signing secret', type: 'string', secret: true, hint: 'Signs each body' },
  { key: 'method', name: 'HTTP method', type: 'choice', choices: ['POST', 'PUT'], default: 'POST' },
  { key: 'headers', name: 'Extra headers', type: 'json' },
  { key: 'certificate', name: 'Certificate', type: 'attachment' },
]

function show(stored: Record<string, unknown>, save: (config: Record<string, string>) => Promise<unknown>, onSaved = () => {}) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <PluginConfigForm pluginName="Webhook Export" schema={SCHEMA} stored={stored} submitLabel="Save" save={save} onSaved={onSaved} />
    </QueryClientProvider>,
  )
  return userEvent.setup()
}

describe("a plugin's config form", () => {
  it("draws each field of the plugin's schema by its kind, with its name, and notes the kinds it cannot draw", () => {
    show({}, async () => ({}))
    expect(screen.getByRole('textbox', { name: 'Webhook URL (required)' })).toHaveProperty('required', true)
    expect(screen.getByLabelText('Signing secret')).toHaveProperty('type', 'password')
    expect(screen.getByLabelText('Signing secret').getAttribute('aria-describedby')).toBeTruthy()
    expect(screen.getByText('Signs each body.')).toBeTruthy()
    const method = screen.getByRole<HTMLSelectElement>('combobox', { name: 'HTTP method' })
    expect([...method.options].map((o) => o.value)).toEqual(['', 'POST', 'PUT'])
    expect(method.value).toBe('POST')
    expect(screen.getByRole('textbox', { name: 'Extra headers' }).tagName).toBe('TEXTAREA')
    expect(screen.getByText(/Certificate/).textContent).toBe('Certificate')
    expect(screen.getByText(/cannot be set in the console/).textContent).toContain('(attachment)')
  })

  it('saves what was typed and chosen, the defaults filled in', async () => {
    const save = vi.fn(async () => ({}))
    const onSaved = vi.fn()
    const user = show({}, save, onSaved)
    await user.type(screen.getByLabelText('Webhook URL (required)'), 'https://hooks.example.com/in')
    await user.selectOptions(screen.getByLabelText('HTTP method'), 'PUT')
    await user.click(screen.getByLabelText('Extra headers'))
    await user.paste('{"X-Team": "web"}')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(save).toHaveBeenCalledWith({ url: 'https://hooks.example.com/in', secret: '', method: 'PUT', headers: '{"X-Team": "web"}' })
    await vi.waitFor(() => expect(onSaved).toHaveBeenCalledOnce())
  })

  it('starts from the stored config and keeps a secret that is set unless a new one is typed', async () => {
    const stored = { url: 'https://hooks.example.com/in', secret: MASK, method: 'PUT', headers: { 'X-Team': 'web' } }
    const save = vi.fn(async () => ({}))
    const user = show(stored, save)
    expect(screen.getByLabelText<HTMLInputElement>('Webhook URL (required)').value).toBe('https://hooks.example.com/in')
    expect(screen.getByLabelText<HTMLInputElement>('Signing secret').value).toBe('')
    expect(screen.getByText(/A value is set and kept secret/)).toBeTruthy()
    expect(JSON.parse(screen.getByLabelText<HTMLTextAreaElement>('Extra headers').value)).toEqual({ 'X-Team': 'web' })
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(save).toHaveBeenLastCalledWith(expect.not.objectContaining({ secret: expect.anything() }))
    await user.type(screen.getByLabelText('Signing secret'), 'new-secret')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(save).toHaveBeenLastCalledWith(expect.objectContaining({ secret: 'new-secret' }))
  })

  it('sends nothing for the fields it does not draw', () => {
    expect(configToSend(SCHEMA, { url: 'u', certificate: 'x' }, {})).toEqual({ url: 'u', secret: '', method: '', headers: '' })
  })

  it("keeps the form open with the service's words when the save is refused", async () => {
    const refusal = new ApiError(400, {
      type: 'validation_error',
      code: 'required',
      detail: '"Webhook URL" is required to enable the plugin.',
      attr: 'config__url',
    })
    const onSaved = vi.fn()
    const user = show({ url: 'x' }, () => Promise.reject(refusal), onSaved)
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect((await screen.findByRole('alert')).textContent).toBe('"Webhook URL" is required to enable the plugin.')
    expect(onSaved).not.toHaveBeenCalled()
  })
})
