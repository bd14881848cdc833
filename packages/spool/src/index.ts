export { DiskReserve, type DiskReserveOptions, type DiskRoom } from './diskReserve'
export { encodeFrame, readFrame, writtenFrameContent, type Frame, type FrameContent, type FrameRead, type Sighting } from './frames'
export { createSpoolMetrics, type SpoolMetrics } from './metrics'
export type { GroupSet, PersonChanges, PersonIntent } from './personIntent'
export { clearRestoredMark, markRestored, readRestoredMark } from './restoredMark'
export { SegmentReader, SpoolFormatError, type SegmentFormat } from './segmentReader'
export {
  listSegments,
  readPosition,
  removeSegment,
  writePosition,
  SEGMENT_FORMAT_VERSION,
  type InsertIntent,
  type SpoolPosition,
} from './segments'
export { SpoolAppender, type SpoolAppend } from './spoolAppender'
export { SpoolBytes } from './spoolBytes'
export { SpoolWriter, type CommittedFrame, type SegmentWriter, type SpoolWriterOptions } from './spoolWriter'
export { segmentPath } from './segments'
