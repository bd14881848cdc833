import { clickHouseDateTimeToIso, events as eventsTable, type EventRowToEncode } from '@burrow/clickhouse'
import type { CoreDeps } from '@burrow/core'
import { plugins } from '@burrow/plugins'
import type { FrameContent, PersonIntent, Sighting } from '@burrow/spool'
import type { Counter } from 'prom-client'
import { personIntentAfterPlugins } from './personIntentAfterPlugins'

export interface TransformStageDeps {
  deps: Pick<CoreDeps, 'ch' | 'log'>
  resolver: plugins.PluginConfigsResolver
  appMetrics: plugins.AppMetrics
  logs: plugins.PluginLogBuffer
  /** Each plugin's time per event; over it the plugin counts as failed and its result is discarded. */
  budgetMs: number
  eventsDropped: Counter<'reason'>
  pluginRuns: Counter<'plugin' | 'outcome'>
}

type DecodedRow = Omit<EventRowToEncode, 'properties'> & { properties: Record<string, unknown> | string }

const timestampMs = (text: string) => Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`)

/**
 * Runs the projects' transformations on a batch's frames, before groups and persons. Only the
 * frames of projects with an enabled transformation are decoded and encoded again; the others
 * are passed on as they are, which is all a batch without plugins costs beyond one lookup.
 */
export async function transformFrames(stage: TransformStageDeps, frames: FrameContent[]): Promise<FrameContent[]> {
  const all = await stage.resolver.all()
  if (all.size === 0) return frames
  let changed = false
  const out = frames.map((frame) => {
    const project = all.get(frame.teamId)
    if (!project || project.transformations.length === 0) return frame
    changed = true
    return transformFrame(stage, frame, project.transformations)
  })
  await stage.logs.flush(stage.deps).catch((err: unknown) => stage.deps.log('could not write plugin log entries', err))
  return changed ? out.filter((f) => f.rows > 0) : frames
}

function transformFrame(stage: TransformStageDeps, frame: FrameContent, transformations: plugins.LoadedTransformation[]): FrameContent {
  const lines: string[] = []
  const persons: PersonIntent[] | undefined = frame.persons ? [] : undefined
  const latest = new Map<string, Sighting>()
  const runs = new Map<plugins.LoadedTransformation, { succeeded: number; failed: number }>()
  const text = frame.body.toString('utf8')
  let start = 0
  for (let i = 0; i < frame.rows && start < text.length; i++) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end < 0 ? text.length : end)
    start = end < 0 ? text.length : end + 1
    let row: DecodedRow
    let properties: Record<string, unknown>
    try {
      row = JSON.parse(line) as DecodedRow
      properties = typeof row.properties === 'string' ? (JSON.parse(row.properties) as Record<string, unknown>) : row.properties
    } catch {
      // Not a row this service wrote: stored as it is, as it would be without plugins.
      lines.push(line)
      const intent = frame.persons?.[i]
      if (persons && intent !== undefined) persons.push(intent)
      continue
    }
    const before: plugins.PluginEvent = {
      uuid: row.uuid,
      team_id: frame.teamId,
      event: row.event,
      distinct_id: row.distinct_id,
      properties,
      timestamp: clickHouseDateTimeToIso(row.timestamp),
    }
    const outcome = plugins.runTransformations(before, transformations, stage.budgetMs)
    for (const { plugin, ok } of outcome.ran) {
      const counts = runs.get(plugin) ?? { succeeded: 0, failed: 0 }
      counts[ok ? 'succeeded' : 'failed']++
      runs.set(plugin, counts)
    }
    for (const { plugin, error } of outcome.failures) {
      const config = { id: plugin.configId, project_id: frame.teamId, plugin_id: plugin.pluginId }
      stage.logs.add(config, 'PLUGIN', 'ERROR', `Error in processEvent for event ${row.uuid}: ${error.name}: ${error.message}`)
      stage.appMetrics.record(plugin.configId, 'processEvent', 'failure', `${error.name}: ${error.message}`)
    }
    const after = outcome.event
    if (!after) {
      const by = outcome.droppedBy
      stage.eventsDropped.inc({ reason: `plugin:${by ? by.label.slice(0, by.label.lastIndexOf(' (')) : 'unknown'}` })
      continue
    }
    lines.push(eventsTable.encodeEventRowText({ ...row, event: after.event, distinct_id: after.distinct_id, properties: after.properties }))
    const intent = frame.persons?.[i]
    if (persons && intent !== undefined) persons.push(personIntentAfterPlugins(intent, after.event, after.distinct_id, after.properties))
    const ms = timestampMs(row.timestamp)
    const seen = latest.get(after.event)
    if (!seen) latest.set(after.event, [frame.teamId, after.event, ms])
    else if (ms > seen[2]) seen[2] = ms
  }
  // Counted once per frame: a labelled counter, or an app metric's keyed count, per event cost
  // more than the plugins' own work.
  for (const [plugin, counts] of runs) {
    if (counts.succeeded > 0) stage.appMetrics.recordSuccesses(plugin.configId, 'processEvent', counts.succeeded)
    const name = plugin.label.slice(0, plugin.label.lastIndexOf(' ('))
    for (const outcome of ['succeeded', 'failed'] as const)
      if (counts[outcome] > 0) stage.pluginRuns.inc({ plugin: name, outcome }, counts[outcome])
  }
  return { rows: lines.length, sightings: [...latest.values()], teamId: frame.teamId, persons, body: concatenated(lines) }
}

/**
 * The lines as one buffer, each written in its place and followed by its newline: joining them
 * into one string first cost more than encoding them, as it copied the whole frame once more.
 * A line whose UTF-8 length is its length in characters is ASCII, whose UTF-8 is its Latin-1,
 * which is written at a fifth of the cost.
 */
function concatenated(lines: readonly string[]): Buffer {
  const sizes = lines.map((line) => Buffer.byteLength(line))
  const body = Buffer.allocUnsafe(sizes.reduce((sum, size) => sum + size + 1, 0))
  let offset = 0
  for (const [i, line] of lines.entries()) {
    offset += body.write(line, offset, sizes[i] === line.length ? 'latin1' : 'utf8')
    body[offset++] = 0x0a
  }
  return body
}
