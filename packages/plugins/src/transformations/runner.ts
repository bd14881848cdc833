import type { PluginEvent, Transformation } from './event'

/** An enabled transformation config, ready to run. */
export interface LoadedTransformation {
  configId: number
  pluginId: number
  /** `"<plugin name> (<config id>)"`, as `$plugins_succeeded` and `$plugins_failed` name it. */
  label: string
  run: Transformation
  /** The plugin may change the event it is given in place: it gets a copy (built-ins copy what they change themselves). */
  changesInPlace?: boolean
}

export interface TransformationFailure {
  plugin: LoadedTransformation
  error: Error
}

export interface TransformationOutcome {
  /** The event to store, or null when a plugin dropped it. */
  event: PluginEvent | null
  droppedBy: LoadedTransformation | undefined
  /** Each config that ran, with whether it succeeded (for app metrics). */
  ran: Array<{ plugin: LoadedTransformation; ok: boolean }>
  failures: TransformationFailure[]
}

export class TransformationTimeout extends Error {
  constructor(budgetMs: number, tookMs: number) {
    super(`Transformation took ${Math.round(tookMs)} ms, over its budget of ${budgetMs} ms: its result was discarded`)
    this.name = 'TimeoutError'
  }
}

/** A copy of the labels an event's `$plugins_succeeded` or `$plugins_failed` holds; none when it is not a list. */
const labels = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((label): label is string => typeof label === 'string') : []

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)))

function checked(before: PluginEvent, after: PluginEvent): PluginEvent {
  if (typeof after !== 'object' || after === null) throw new Error('The plugin returned something other than an event')
  if (after.team_id !== before.team_id) throw new Error("A plugin cannot change the event's project (team_id)")
  if (after.uuid !== before.uuid) throw new Error("A plugin cannot change the event's uuid")
  if (typeof after.event !== 'string' || after.event === '') throw new Error('The plugin returned an event without a name')
  if (typeof after.distinct_id !== 'string' || after.distinct_id === '')
    throw new Error('The plugin returned an event without a distinct_id')
  if (typeof after.properties !== 'object' || after.properties === null || Array.isArray(after.properties)) {
    throw new Error('The plugin returned an event without a properties object')
  }
  return after
}

/**
 * Runs a project's transformations on one event, in order, as PostHog's plugin server does: a
 * plugin that returns nothing drops the event (the later ones do not run); one that throws, goes
 * over its time budget or returns an invalid event leaves the event as it was before it, and the
 * next one runs. The built-ins copy what they change; a plugin that may change the event in
 * place gets a shallow copy of it and its properties, so that what it changed before failing is
 * not kept. The outcome lists who succeeded and who failed in `$plugins_succeeded` /
 * `$plugins_failed`, added to the returned event's properties object (which may be the one given:
 * the caller gives an event it owns), after what the event listed already; a plugin listed
 * already is skipped.
 */
export function runTransformations(event: PluginEvent, plugins: readonly LoadedTransformation[], budgetMs: number): TransformationOutcome {
  const ran: TransformationOutcome['ran'] = []
  const failures: TransformationFailure[] = []
  // An event that went through plugins before (replayed, or imported from PostHog) keeps its
  // lists, and a plugin named in them does not run again.
  const succeeded = labels(event.properties.$plugins_succeeded)
  const failed = labels(event.properties.$plugins_failed)
  const already = succeeded.length + failed.length > 0 ? new Set([...succeeded, ...failed]) : undefined
  let current = event
  for (const plugin of plugins) {
    if (already?.has(plugin.label)) continue
    const started = performance.now()
    try {
      const result = plugin.run(plugin.changesInPlace ? { ...current, properties: { ...current.properties } } : current)
      const took = performance.now() - started
      if (took > budgetMs) throw new TransformationTimeout(budgetMs, took)
      if (result === null || result === undefined) {
        ran.push({ plugin, ok: true })
        return { event: null, droppedBy: plugin, ran, failures }
      }
      current = checked(current, result)
      succeeded.push(plugin.label)
      ran.push({ plugin, ok: true })
    } catch (err) {
      failed.push(plugin.label)
      failures.push({ plugin, error: asError(err) })
      ran.push({ plugin, ok: false })
    }
  }
  if (succeeded.length > 0 || failed.length > 0) {
    current.properties.$plugins_succeeded = succeeded
    current.properties.$plugins_failed = failed
  }
  return { event: current, droppedBy: undefined, ran, failures }
}
