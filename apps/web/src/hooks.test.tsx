// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, renderHook, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LIVE_INTERVAL_MS, useLiveEvents } from './hooks'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** The service's answers over tRPC's batch protocol: each call to `events.list` gets the next page; the inputs are kept. */
function serviceAnswering(pages: { id: string; event: string }[][]) {
  const inputs: unknown[] = []
  let call = 0
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const parsed = new URL(url, 'http://console')
      expect(parsed.pathname).toBe('/trpc/events.list')
      inputs.push((JSON.parse(parsed.searchParams.get('input') ?? '{}') as Record<string, unknown>)['0'])
      const results = pages[Math.min(call++, pages.length - 1)]!
      const data = { count: results.length, limit: 100, offset: 0, results }
      return new Response(JSON.stringify([{ result: { data } }]), { headers: { 'content-type': 'application/json' } })
    }),
  )
  return inputs
}

function wrapper({ children }: { children: React.ReactNode }) {
  return <QueryClientProvider client={new QueryClient()}>{children}</QueryClientProvider>
}

describe('useLiveEvents', () => {
  it('asks for the newest events again every second, so that a new one shows without reloading', async () => {
    serviceAnswering([
      [{ id: '1', event: 'first' }],
      [
        { id: '2', event: 'second' },
        { id: '1', event: 'first' },
      ],
    ])
    const { result } = renderHook(() => useLiveEvents('7', {}, true), { wrapper })
    await waitFor(() => expect(result.current.data?.results.map((e) => e.event)).toEqual(['first']))
    await waitFor(() => expect(result.current.data?.results.map((e) => e.event)).toEqual(['second', 'first']), {
      timeout: LIVE_INTERVAL_MS * 3,
    })
  })

  it("sends the URL's filters: event name, distinct id, and a property as PostHog's exact-match filter", async () => {
    const inputs = serviceAnswering([[]])
    const filters = { event: '$pageview', distinct_id: 'user-1', property: '$browser', value: 'Chrome' }
    const { result } = renderHook(() => useLiveEvents('7', filters, false), { wrapper })
    await waitFor(() => expect(result.current.isSuccess).toBe(true))
    expect(inputs[0]).toEqual({
      project_id: '7',
      limit: 100,
      event: '$pageview',
      distinct_id: 'user-1',
      properties: JSON.stringify([{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }]),
    })
  })

  it('asks once when paused', async () => {
    const inputs = serviceAnswering([[{ id: '1', event: 'first' }]])
    const { result } = renderHook(() => useLiveEvents('7', {}, false), { wrapper })
    await waitFor(() => expect(result.current.isSuccess).toBe(true))
    await new Promise((resolve) => setTimeout(resolve, LIVE_INTERVAL_MS * 1.5))
    expect(inputs).toHaveLength(1)
  })
})
