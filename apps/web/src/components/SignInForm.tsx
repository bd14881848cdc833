import { useId, useState } from 'react'
import { errorWords } from '../api'

/**
 * Email and password. The service's refusal is shown in its own words ("Invalid email or
 * password.", or how long to wait after too many tries) and announced to screen readers; the
 * button is disabled while a try is under way, so a double click is one try.
 */
export function SignInForm({
  signIn,
  onSignedIn,
}: {
  signIn: (email: string, password: string) => Promise<unknown>
  onSignedIn: () => Promise<void> | void
}) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>()
  const errorId = useId()
  const headingId = useId()

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setPending(true)
    setError(undefined)
    try {
      await signIn(email.trim(), password)
      await onSignedIn()
    } catch (err) {
      setError(err)
    } finally {
      setPending(false)
    }
  }

  const failed = error !== undefined
  return (
    <form className="stack" onSubmit={(e) => void submit(e)} aria-labelledby={headingId} aria-describedby={failed ? errorId : undefined}>
      <h1 id={headingId}>Sign in to Burrow</h1>
      <label className="field">
        <span>Email</span>
        <input
          type="email"
          name="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={failed || undefined}
        />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
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
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
