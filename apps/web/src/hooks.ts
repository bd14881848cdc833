import { QueryClient, queryOptions, useQuery } from '@tanstack/react-query'
import { trpc } from './api'

export const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } },
})

/** The signed-in user, their organization and current project; fails with 401 when signed out. */
export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: ({ signal }) => trpc.users.me.query(undefined, { signal }),
  staleTime: 60_000,
  retry: false,
})

export function useMe() {
  return useQuery(meQuery)
}

/** The filters of Live events, as its URL keeps them. */
export interface EventFilters {
  event?: string | undefined
  distinct_id?: string | undefined
  property?: string | undefined
  value?: string | undefined
}

/** How often Live events asks for what is new: an event shows within about a second of being stored. */
export const LIVE_INTERVAL_MS = 1_000

/** The newest events of a project that match the filters, asked for again every second while `live`. */
export function useLiveEvents(projectId: string, filters: EventFilters, live: boolean) {
  const properties =
    filters.property && filters.value !== undefined
      ? JSON.stringify([{ key: filters.property, value: filters.value, operator: 'exact', type: 'event' }])
      : undefined
  return useQuery({
    queryKey: ['events', projectId, filters],
    queryFn: ({ signal }) =>
      trpc.events.list.query(
        {
          project_id: projectId,
          limit: 100,
          ...(filters.event ? { event: filters.event } : {}),
          ...(filters.distinct_id ? { distinct_id: filters.distinct_id } : {}),
          ...(properties ? { properties } : {}),
        },
        { signal },
      ),
    refetchInterval: live ? LIVE_INTERVAL_MS : false,
    // A failing filter is not asked again every second: the error stays on screen until changed.
    retry: false,
  })
}
