import { useQueryClient } from '@tanstack/react-query'
import { Link, Outlet, useLocation, useNavigate, useParams } from '@tanstack/react-router'
import { useState } from 'react'
import { errorWords, signOut } from '../api'
import { useMe } from '../hooks'
import { NAV } from '../nav'
import { applyTheme, nextTheme, storedTheme, type ThemeChoice } from '../theme'
import { ErrorNotice, Loading } from './States'

const THEME_LABEL: Record<ThemeChoice, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' }

/** The frame of every project page: the pages, the project switcher, the theme, signing out. */
export function Shell(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId' })
  const location = useLocation()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const me = useMe()
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme)
  const [signOutError, setSignOutError] = useState<unknown>()

  if (me.isPending) return <Loading what="your account" />
  if (me.isError) {
    return (
      <main>
        <ErrorNotice error={me.error} retry={() => void me.refetch()} />
      </main>
    )
  }
  const projects = me.data.organization?.teams ?? []
  const page = location.pathname.split('/')[3] ?? 'events'

  // The same page of the other project, without this one's filters (they name this project's events and people).
  const switchProject = (id: string) => {
    const to = NAV.find((item) => item.page === page)?.to ?? '/project/$projectId/events'
    void navigate({ to, params: { projectId: id } })
  }
  const toggleTheme = () => {
    const next = nextTheme(theme)
    applyTheme(next)
    setTheme(next)
  }
  const leave = async () => {
    try {
      await signOut()
      queryClient.clear()
      await navigate({ to: '/login', search: {} })
    } catch (err) {
      setSignOutError(err)
    }
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">Burrow</div>
        <label className="field">
          <span>Project</span>
          <select value={projectId} onChange={(e) => switchProject(e.target.value)}>
            {projects.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.name}
              </option>
            ))}
            {!projects.some((p) => String(p.id) === projectId) && <option value={projectId}>Project {projectId}</option>}
          </select>
        </label>
        <nav className="nav" aria-label="Pages">
          <ul>
            {NAV.map((item) => (
              <li key={item.page}>
                <Link to={item.to} params={{ projectId }} aria-current={page === item.page ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <span className="muted">{me.data.email}</span>
          <button type="button" onClick={toggleTheme} aria-label={`${THEME_LABEL[theme]}; change`}>
            {THEME_LABEL[theme]}
          </button>
          <button type="button" onClick={() => void leave()}>
            Sign out
          </button>
          {signOutError !== undefined && (
            <p className="error" role="alert">
              {errorWords(signOutError)}
            </p>
          )}
        </div>
      </aside>
      <main id="content">
        <Outlet />
      </main>
    </div>
  )
}
