import type { FaultRule } from './faults'

/** What a test asks of a stand-in process over its IPC channel. */
export type StandinCommand = { id: number } & (
  { op: 'fault'; rule: FaultRule } | { op: 'clear-faults' } | { op: 'refuse' } | { op: 'accept' }
)

export type StandinReply = { id: number; ok: true } | { id: number; ok: false; error: string }
