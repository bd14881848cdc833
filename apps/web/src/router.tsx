import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Outlet, redirect } from '@tanstack/react-router'
import { statusOf } from './api'
import { Home } from './pages/Home'
import { NotFound } from './pages/NotFound'
import { SignIn } from './pages/SignIn'
import { Shell } from './components/Shell'
import { meQuery, queryClient, type EventFilters } from './hooks'
import { dayOf, presetOf, tabOf, type WebTab } from './webAnalytics'

interface DashboardSearch {
  date_from?: string | undefined
  property?: string | undefined
  value?: string | undefined
}

/** A search parameter as text, or nothing: what a person typed into a URL is not trusted to be anything else. */
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined

/** A list's offset from the URL: a whole number of rows, 0 when it is anything else. */
const offsetOf = (value: unknown): number | undefined => {
  const n = Number(text(value))
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

const rootRoute = createRootRoute({ component: Outlet, notFoundComponent: NotFound })

/**
 * The signed-in user, or a redirect to the sign-in page that comes back to `next`. Any other
 * failure is left to the page, which shows it with a way to try again.
 */
async function signedIn(next: string) {
  try {
    return await queryClient.ensureQueryData(meQuery)
  } catch (err) {
    if (statusOf(err) === 401) redirect({ to: '/login', search: next === '/' ? {} : { next }, throw: true })
    return undefined
  }
}

const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: async ({ location }) => {
    const me = await signedIn(location.href)
    const project = me?.team?.id ?? me?.organization?.teams[0]?.id
    if (project !== undefined)
      redirect({ to: '/project/$projectId/events', params: { projectId: String(project) }, search: {}, throw: true })
  },
  component: Home,
})

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: (search: Record<string, unknown>): { next?: string | undefined } => {
    const next = text(search.next)
    // Only a path of this console: never a way to send someone elsewhere after they sign in.
    return next?.startsWith('/') && !next.startsWith('//') ? { next } : {}
  },
  component: SignIn,
})

export const projectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/project/$projectId',
  beforeLoad: async ({ location }) => void (await signedIn(location.href)),
  component: Shell,
})

/** Each page's code is its own chunk, loaded when the page is first opened. */
const page = <K extends string>(load: () => Promise<Record<K, React.ComponentType>>, name: K) => lazyRouteComponent(load, name)

/** An invite's link: open to whoever holds it, signed in or not. */
export const inviteSignUpRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signup/$inviteId',
  component: page(() => import('./pages/InviteSignUp'), 'InviteSignUp'),
})

export const eventsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'events',
  validateSearch: (search: Record<string, unknown>): EventFilters => ({
    event: text(search.event),
    distinct_id: text(search.distinct_id),
    property: text(search.property),
    value: text(search.value),
  }),
  component: page(() => import('./pages/LiveEvents'), 'LiveEvents'),
})

export const settingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'settings',
  component: page(() => import('./pages/Settings'), 'Settings'),
})

export const flagsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'feature_flags',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/FeatureFlags'), 'FeatureFlags'),
})

export const flagRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'feature_flags/$id',
  validateSearch: (search: Record<string, unknown>): { distinct_id?: string | undefined } => ({ distinct_id: text(search.distinct_id) }),
  component: page(() => import('./pages/FeatureFlags'), 'FeatureFlagPage'),
})

export const personsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'persons',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined; offset?: number | undefined } => ({
    search: text(search.search),
    offset: offsetOf(search.offset),
  }),
  component: page(() => import('./pages/Persons'), 'Persons'),
})

export const personRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'persons/$personId',
  component: page(() => import('./pages/Persons'), 'PersonPage'),
})

export const cohortsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'cohorts',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/Cohorts'), 'Cohorts'),
})

export const newCohortRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'cohorts/new',
  component: page(() => import('./pages/Cohorts'), 'NewCohort'),
})

export const cohortRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'cohorts/$cohortId',
  component: page(() => import('./pages/Cohorts'), 'CohortPage'),
})

export const insightsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'insights',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/Insights'), 'Insights'),
})

/** The builder's query, as JSON in `?q=`: a link redraws the same chart. The page checks its kind. */
const insightSearch = (search: Record<string, unknown>): { q?: Record<string, unknown> | undefined } => ({
  q: typeof search.q === 'object' && search.q !== null && !Array.isArray(search.q) ? (search.q as Record<string, unknown>) : undefined,
})

export const newInsightRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'insights/new',
  validateSearch: insightSearch,
  component: page(() => import('./pages/InsightBuilder'), 'NewInsight'),
})

export const insightRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'insights/$shortId',
  validateSearch: insightSearch,
  component: page(() => import('./pages/InsightBuilder'), 'SavedInsight'),
})

export const dashboardsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'dashboards',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/Dashboards'), 'Dashboards'),
})

export const dashboardRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'dashboards/$id',
  // The date range and the property filter over every tile: a link shows what its sender saw.
  validateSearch: (search: Record<string, unknown>): DashboardSearch => ({
    date_from: text(search.date_from),
    property: text(search.property),
    value: text(search.value),
  }),
  component: page(() => import('./pages/Dashboards'), 'DashboardPage'),
})

export const webRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'web',
  validateSearch: (
    search: Record<string, unknown>,
  ): { date_from?: string | undefined; date_to?: string | undefined; tab?: WebTab | undefined; property?: string; value?: string } => ({
    // A preset, or a custom range's first and last day; and an event property's value to filter by.
    date_from: presetOf(search.date_from) ?? dayOf(search.date_from),
    date_to: dayOf(search.date_to),
    property: text(search.property),
    value: text(search.value),
    tab: tabOf(search.tab),
  }),
  component: page(() => import('./pages/WebAnalytics'), 'WebAnalytics'),
})

export const sqlRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'sql',
  // The query run, as its text: a link runs it again.
  validateSearch: (search: Record<string, unknown>): { q?: string | undefined } => ({ q: text(search.q) }),
  component: page(() => import('./pages/Sql'), 'Sql'),
})

export const dataManagementRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'data-management',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/DataManagement'), 'DataManagement'),
})

export const actionsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'data-management/actions',
  validateSearch: (search: Record<string, unknown>): { search?: string | undefined } => ({ search: text(search.search) }),
  component: page(() => import('./pages/Actions'), 'Actions'),
})

export const newActionRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'data-management/actions/new',
  component: page(() => import('./pages/Actions'), 'NewAction'),
})

export const actionRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'data-management/actions/$actionId',
  component: page(() => import('./pages/Actions'), 'ActionPage'),
})

export const pluginsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plugins',
  component: page(() => import('./pages/Plugins'), 'Plugins'),
})

export const earlyAccessRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'early_access_features',
  component: page(() => import('./pages/EarlyAccessFeatures'), 'EarlyAccessFeatures'),
})

const routeTree = rootRoute.addChildren([
  homeRoute,
  signInRoute,
  inviteSignUpRoute,
  projectRoute.addChildren([
    eventsRoute,
    settingsRoute,
    flagsRoute,
    flagRoute,
    personsRoute,
    personRoute,
    cohortsRoute,
    newCohortRoute,
    cohortRoute,
    insightsRoute,
    newInsightRoute,
    insightRoute,
    dashboardsRoute,
    dashboardRoute,
    webRoute,
    sqlRoute,
    dataManagementRoute,
    actionsRoute,
    newActionRoute,
    actionRoute,
    pluginsRoute,
    earlyAccessRoute,
  ]),
])

export const router = createRouter({ routeTree, defaultPreload: 'intent', scrollRestoration: true })

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
