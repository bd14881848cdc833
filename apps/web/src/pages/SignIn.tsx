import { useQueryClient } from '@tanstack/react-query'
import { useNavigate, useSearch } from '@tanstack/react-router'
import { SignInForm } from '../components/SignInForm'
import { signIn } from '../api'

/** `/login`: the sign-in form; then the page asked for (`?next=`), or the start. */
export function SignIn(): React.JSX.Element {
  const { next } = useSearch({ from: '/login' })
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  return (
    <main className="sign-in">
      <SignInForm
        signIn={signIn}
        onSignedIn={async () => {
          queryClient.clear()
          await navigate({ to: next ?? '/' })
        }}
      />
    </main>
  )
}
