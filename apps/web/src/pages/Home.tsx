import { ErrorNotice, Loading } from '../components/States'
import { useMe } from '../hooks'

/** `/`: the route sends a signed-in user to their project's Live events; this shows what stops it. */
export function Home(): React.JSX.Element {
  const me = useMe()
  if (me.isPending) return <Loading what="your account" />
  if (me.isError)
    return (
      <main>
        <ErrorNotice error={me.error} retry={() => void me.refetch()} />
      </main>
    )
  return (
    <main>
      <p>Your account has no project yet.</p>
    </main>
  )
}
