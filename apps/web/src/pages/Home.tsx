import { Navigate } from '@tanstack/react-router'
import { statusOf } from '../api'
import { ErrorNotice, Loading } from '../components/States'
import { useMe } from '../hooks'

/** `/`: the current project's Live events, or the sign-in page. */
export function Home(): React.JSX.Element {
  const me = useMe()
  if (me.isPending) return <Loading what="your account" />
  if (me.isError) {
    if (statusOf(me.error) === 401) return <Navigate to="/login" search={{}} />
    return (
      <main>
        <ErrorNotice error={me.error} retry={() => void me.refetch()} />
      </main>
    )
  }
  const project = me.data.team?.id ?? me.data.organization?.teams[0]?.id
  if (project === undefined)
    return (
      <main>
        <p>Your account has no project yet.</p>
      </main>
    )
  return <Navigate to="/project/$projectId/events" params={{ projectId: String(project) }} search={{}} />
}
