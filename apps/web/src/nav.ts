// The console's pages as the side bar lists them: a module of its own, so that the shell reads it
// without importing the router that imports the shell.

/** The side bar's pages, in order; `page` is the URL's segment after the project. */
export const NAV = [
  { page: 'events', to: '/project/$projectId/events', label: 'Live events' },
  { page: 'web', to: '/project/$projectId/web', label: 'Web analytics' },
  { page: 'insights', to: '/project/$projectId/insights', label: 'Insights' },
  { page: 'dashboards', to: '/project/$projectId/dashboards', label: 'Dashboards' },
  { page: 'sql', to: '/project/$projectId/sql', label: 'SQL' },
  { page: 'persons', to: '/project/$projectId/persons', label: 'People' },
  { page: 'cohorts', to: '/project/$projectId/cohorts', label: 'Cohorts' },
  { page: 'feature_flags', to: '/project/$projectId/feature_flags', label: 'Feature flags' },
  { page: 'early_access_features', to: '/project/$projectId/early_access_features', label: 'Early access' },
  { page: 'data-management', to: '/project/$projectId/data-management', label: 'Data management' },
  { page: 'plugins', to: '/project/$projectId/plugins', label: 'Plugins' },
  { page: 'settings', to: '/project/$projectId/settings', label: 'Settings' },
] as const
