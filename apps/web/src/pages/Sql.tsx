import { useQuery } from '@tanstack/react-query'
import { useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useState } from 'react'
import { errorWords, trpc } from '../api'
import { SqlResult } from '../components/SqlResult'
import { Loading } from '../components/States'
import { DEFAULT_SQL, errorPosition, hogqlQuery } from '../sql'

/** CodeMirror, in a chunk of its own: loaded when this page first draws, never on a first visit elsewhere. */
const SqlEditor = lazy(() => import('../components/SqlEditor').then((m) => ({ default: m.SqlEditor })))

const FROM = '/project/$projectId/sql'

/**
 * `/project/:id/sql`: a HogQL editor whose query runs through `/query/` (PostHog's HogQLQuery),
 * its answer as a table under the names of its columns. The query run is the URL's `?q=`, so
 * a link runs it again.
 */
export function Sql(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const { q } = useSearch({ from: FROM })
  const navigate = useNavigate({ from: FROM })
  const [text, setText] = useState(q ?? DEFAULT_SQL)
  const [focusError, setFocusError] = useState(0)
  // Back and Forward bring the query of that URL into the editor.
  useEffect(() => {
    if (q !== undefined) setText(q)
  }, [q])
  const answer = useQuery({
    queryKey: ['sql', projectId, q],
    queryFn: ({ signal }) =>
      trpc.query.run.mutate({ project_id: projectId, query: hogqlQuery(q ?? ''), refresh: 'force_blocking' }, { signal }),
    enabled: q !== undefined && q.trim() !== '',
    retry: false,
  })
  const run = (query: string) => {
    if (query.trim() === '') return
    if (query === q) void answer.refetch()
    else void navigate({ search: { q: query } })
  }
  return (
    <>
      <h1>SQL</h1>
      <p className="muted" id="sql-help">
        Query the project&apos;s events, persons and more in HogQL, PostHog&apos;s SQL. Run with the button or Ctrl+Enter (⌘+Enter on a
        Mac); Tab leaves the editor.
      </p>
      <form
        className="stack"
        aria-label="HogQL query"
        onSubmit={(e) => {
          e.preventDefault()
          run(text)
        }}
      >
        <Suspense fallback={<Loading what="the editor" />}>
          <SqlEditor
            label="HogQL query"
            value={text}
            onChange={setText}
            onRun={run}
            errorAt={answer.isError && text === q ? errorPosition(errorWords(answer.error), text)?.offset : undefined}
            focusError={focusError}
          />
        </Suspense>
        <div className="row">
          <button type="submit" className="primary" disabled={answer.isFetching || text.trim() === ''}>
            {answer.isFetching ? 'Running…' : 'Run'}
          </button>
        </div>
      </form>
      <SqlResult query={q} answer={answer} onShowError={() => setFocusError((n) => n + 1)} />
    </>
  )
}
