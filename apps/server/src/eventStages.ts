import type { CoreDeps } from '@burrow/core'
import { framesOfExistingProjects, GroupStage, PersonStage } from '@burrow/ingestion'
import type { FrameContent } from '@burrow/spool'
import type { PluginStages } from './plugins'

/**
 * What happens to a batch of events before it is stored, for the spool consumer's batches and
 * replayed dead letters alike: the events of deleted projects are left out, the projects'
 * plugin transformations run first (so that what they set, GeoIP's `$set`, reaches groups and
 * persons), then groups and persons. Answers the frames to store.
 */
export function beforeStoringWith(
  deps: CoreDeps,
  plugins: Pick<PluginStages, 'transform'>,
): (frames: FrameContent[]) => Promise<FrameContent[]> {
  const persons = new PersonStage(deps)
  const groups = new GroupStage(deps)
  return async (frames) => {
    const transformed = await plugins.transform(await framesOfExistingProjects(deps.sql, frames))
    const stored = await groups.assign(transformed)
    await persons.assign(stored)
    return stored
  }
}
