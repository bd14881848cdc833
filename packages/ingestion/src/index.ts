export { EventSpool, whileAllPaused, type EventSpoolOptions } from './eventSpool'
export { framesOfExistingProjects } from './existingProjects'
export { EventSink, type EventSinkOptions } from './eventSink'
export { registerSinkFailingGauge } from './sinkMetrics'
export { createIngestionMetrics, type IngestionMetrics } from './metrics'
export {
  listDeadLetters,
  purgeDeadLetters,
  replayDeadLetters,
  type DeadLetterDeps,
  type DeadLetterFilter,
  type ReplayOutcome,
} from './deadLetters'
export { PersonStage } from './persons/personStage'
export { GroupStage } from './groups/groupStage'
export { transformFrames, type TransformStageDeps } from './plugins/transformStage'
export { createPluginMetrics, type PluginMetrics } from './plugins/metrics'
export { DestinationStage } from './plugins/destinationStage'
