import { Link } from '@tanstack/react-router'

/** Data management's sections as links, the open one marked as the current page (whatever its search). */
export function DataManagementNav({ projectId }: { projectId: string }) {
  const exact = { exact: true, includeSearch: false }
  return (
    <nav className="subnav" aria-label="Data management">
      <Link to="/project/$projectId/data-management" params={{ projectId }} search={{}} activeOptions={exact}>
        Event definitions
      </Link>
      <Link to="/project/$projectId/data-management/actions" params={{ projectId }} search={{}} activeOptions={exact}>
        Actions
      </Link>
    </nav>
  )
}
