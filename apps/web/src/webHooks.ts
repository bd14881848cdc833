import { useQuery } from '@tanstack/react-query'
import { trpc } from './api'

type RunInput = Parameters<typeof trpc.query.run.mutate>[0]

/** The answer of `/query/` for one of the Web analytics page's queries (its overview or a table). */
export function useWebQuery(projectId: string, query: { kind: 'WebOverviewQuery' | 'WebStatsTableQuery' }) {
  return useQuery({
    queryKey: ['web', projectId, query],
    queryFn: ({ signal }) =>
      trpc.query.run.mutate({ project_id: projectId, query: query as RunInput['query'], refresh: 'blocking' }, { signal }),
    retry: false,
  })
}
