import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { errorWords, rest, signUpByInvite, type InviteSummary } from '../api'
import { ErrorNotice, Loading } from '../components/States'

/**
 * `/signup/<invite id>`: the page an invite's link opens. It says who is invited into which
 * organization; the invitee chooses a first name and a password, and is signed in as a member.
 */
export function InviteSignUp(): React.JSX.Element {
  const { inviteId } = useParams({ from: '/signup/$inviteId' })
  const invite = useQuery({
    queryKey: ['invite', inviteId],
    queryFn: () => rest<InviteSummary>('GET', `/api/signup/${encodeURIComponent(inviteId)}/`),
    retry: false,
  })
  return (
    <main className="sign-in">
      {invite.isPending ? (
        <Loading what="the invite" />
      ) : invite.isError ? (
        <div className="stack">
          <h1>This invite cannot be used</h1>
          <ErrorNotice error={invite.error} />
          <p>
            Ask whoever invited you for a new link, or <Link to="/login">sign in</Link> if you have an account.
          </p>
        </div>
      ) : (
        <SignUpForm invite={invite.data} />
      )}
    </main>
  )
}

function SignUpForm({ invite }: { invite: InviteSummary }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [firstName, setFirstName] = useState(invite.first_name)
  const [password, setPassword] = useState('')
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>()
  const headingId = useId()
  const errorId = useId()
  const failed = error !== undefined

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setPending(true)
    setError(undefined)
    try {
      await signUpByInvite(invite.id, firstName.trim(), password)
      queryClient.clear()
      await navigate({ to: '/' })
    } catch (err) {
      setError(err)
    } finally {
      setPending(false)
    }
  }

  return (
    <form className="stack" onSubmit={(e) => void submit(e)} aria-labelledby={headingId} aria-describedby={failed ? errorId : undefined}>
      <h1 id={headingId}>Join {invite.organization_name || 'the organization'}</h1>
      <p>
        You are invited as <strong>{invite.target_email}</strong>. Choose your name and a password to sign in with.
      </p>
      <label className="field">
        <span>First name</span>
        <input
          name="first_name"
          autoComplete="given-name"
          required
          maxLength={128}
          value={firstName}
          onChange={(e) => setFirstName(e.target.value)}
        />
      </label>
      <label className="field">
        <span>Password (at least 8 characters)</span>
        <input
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={failed || undefined}
        />
      </label>
      {failed && (
        <p id={errorId} className="error" role="alert">
          {errorWords(error)}
        </p>
      )}
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Joining…' : 'Join and sign in'}
      </button>
    </form>
  )
}
