import { Link } from '@tanstack/react-router'

export function NotFound(): React.JSX.Element {
  return (
    <main>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <Link to="/">Go to the console&apos;s start</Link>.
      </p>
    </main>
  )
}
