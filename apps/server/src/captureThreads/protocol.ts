import type { ProxyTrust } from '@burrow/capture'

/** What a capture thread is started with. */
export interface CaptureThreadData {
  /** From the sources: the module the bootstrap imports once it has registered TypeScript. */
  entry: string | undefined
  host: string
  maxBodyBytes: number
  maxDecompressedBytes: number
  trustProxy: ProxyTrust
  siteUrl: string | undefined
  eventLoopSampleMs: number
  /** The spool's size, shared by every thread (see SpoolBytes), and its bound. */
  spoolBytes: SharedArrayBuffer
  spoolMaxBytes: number
  /** The file system whose free space is watched (DATA_DIR) and the reserve kept on it: below it capture answers 503. */
  disk: { dir: string; reserveBytes: number }
  /** Tell the main thread of every request answered here, for its request log (debug level only: a message each). */
  reportRequests: boolean
  /** Whether projects have a quota of events a second, counted by the main thread. */
  eventQuota: boolean
}

/** What the main thread tells a capture thread when its lane's spool is open. */
export interface LaneSpool {
  dir: string
  firstSeq: number
  segmentBytes: number
  writesInFlight: number | undefined
}

/**
 * A frame of a commit, as it crosses to the main thread: its rows, and the frame as written at
 * [start, end) of the report's buffer. The bytes cross rather than the objects they hold:
 * decoding the frame's JSON where it is needed costs the two threads less than cloning them.
 */
export interface CommittedFrameMessage {
  rows: number
  start: number
  end: number
}

/**
 * What happened in a thread's spool lane, in order: commits (their frames at [start, end) of
 * the report's one transferred buffer) and rotations.
 */
export type LaneEvent =
  { kind: 'commit'; seq: number; end: number; frames: CommittedFrameMessage[] } | { kind: 'rotate'; seq: number; size: number }
