import type { CoreDeps } from '@burrow/core'
import { framesOfExistingProjects, GroupStage, PersonStage } from '@burrow/ingestion'
import type { FrameContent } from '@burrow/spool'
import type { StageMeter } from './observability/stageMetrics'
import type { PluginStages } from './plugins'

const unmeasured: StageMeter = { time: (_stage, _events, work) => work() }
const rowsOf = (frames: readonly FrameContent[]) => frames.reduce((sum, f) => sum + f.rows, 0)

/**
 * What happens to a batch of events before it is stored, for the spool consumer's batches and
 * replayed dead letters alike: the events of deleted projects are left out, the projects'
 * plugin transformations run first (so that what they set, GeoIP's `$set`, reaches groups and
 * persons), then groups and persons. Answers the frames to store. Each stage is timed by `meter`.
 */
export function beforeStoringWith(
  deps: CoreDeps,
  plugins: Pick<PluginStages, 'transform'>,
  meter: StageMeter = unmeasured,
): (frames: FrameContent[]) => Promise<FrameContent[]> {
  const persons = new PersonStage(deps)
  const groups = new GroupStage(deps)
  return async (frames) => {
    const existing = await meter.time('projects', rowsOf(frames), () => framesOfExistingProjects(deps.sql, frames))
    const events = rowsOf(existing)
    const transformed = await meter.time('transform', events, () => plugins.transform(existing))
    const stored = await meter.time('groups', rowsOf(transformed), () => groups.assign(transformed))
    await meter.time('persons', rowsOf(stored), () => persons.assign(stored))
    return stored
  }
}
