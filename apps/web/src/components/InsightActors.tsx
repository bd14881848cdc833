import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import { ACTORS_PAGE, actorRowsOf, type ChosenPoint } from '../insightActors'
import { useInsightActors } from '../insightHooks'
import type { InsightSource } from '../insightQuery'
import { DataTable } from './DataTable'
import { Dialog } from './Dialog'
import { Pager } from './Pager'
import { Empty, ErrorNotice, Loading } from './States'

/**
 * The persons behind the chosen number of an insight (PostHog's persons modal), each linked to
 * their page, a page of them at a time. Closed while no number is chosen.
 */
export function ActorsDialog({
  projectId,
  opened,
  onClose,
}: {
  projectId: string
  /** The insight's query and its chosen number; undefined while none is chosen. */
  opened: { source: InsightSource; chosen: ChosenPoint } | undefined
  onClose: () => void
}) {
  return (
    <Dialog open={opened !== undefined} title={opened ? `Persons: ${opened.chosen.title}` : 'Persons'} onClose={onClose}>
      {/* A new number starts again from its first page. */}
      {opened && (
        <ActorsList
          key={JSON.stringify([opened.source, opened.chosen.point])}
          projectId={projectId}
          source={opened.source}
          chosen={opened.chosen}
        />
      )}
    </Dialog>
  )
}

function ActorsList({ projectId, source, chosen }: { projectId: string; source: InsightSource; chosen: ChosenPoint }) {
  const [offset, setOffset] = useState(0)
  const answer = useInsightActors(projectId, source, chosen.point, offset)
  if (answer.isPending) return <Loading what="the persons" />
  if (answer.isError) return <ErrorNotice error={answer.error} retry={() => void answer.refetch()} />
  const body = answer.data as { columns?: unknown; results?: unknown; hasMore?: unknown }
  const rows = actorRowsOf(body)
  const more = body.hasMore === true
  // The number's own count pages the list when the answer agrees with it (a person merged since may not).
  const known = chosen.persons !== undefined && offset + rows.length < chosen.persons === more
  if (rows.length === 0 && offset === 0) return <Empty>No persons behind this number.</Empty>
  const countHeader =
    chosen.point.kind === 'TrendsQuery' ? 'Events' : chosen.point.kind === 'RetentionQuery' ? 'Came in periods' : undefined
  return (
    <div className="stack">
      {chosen.persons !== undefined && (
        <p>
          {chosen.persons} person{chosen.persons === 1 ? '' : 's'}
        </p>
      )}
      <DataTable
        label={`Persons: ${chosen.title}`}
        rows={rows}
        rowKey={(row) => row.id}
        columns={[
          {
            header: 'Person',
            cell: (row) => (
              <Link to="/project/$projectId/persons/$personId" params={{ projectId, personId: row.id }}>
                {row.name}
              </Link>
            ),
          },
          { header: 'Distinct id', cell: (row) => <code>{row.distinctId}</code> },
          ...(countHeader ? [{ header: countHeader, cell: (row: (typeof rows)[number]) => row.count ?? '' }] : []),
        ]}
      />
      <Pager
        what="persons"
        offset={offset}
        limit={ACTORS_PAGE}
        shown={rows.length}
        {...(known ? { count: chosen.persons } : { more })}
        onOffset={setOffset}
      />
    </div>
  )
}
