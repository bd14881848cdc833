import { encodeFrame, type CommittedFrame } from '@burrow/spool'
import { afterEach, expect, it, vi } from 'vitest'
import { committedFrames, LaneReports } from './laneReports'
import type { LaneEvent } from './protocol'

afterEach(() => {
  vi.useRealTimers()
})

const committed = (id: string, persons: Parameters<typeof encodeFrame>[3]): CommittedFrame => {
  const frame = encodeFrame([`{"uuid":"${id}"}\n`], [[3, 'signed up', 1]], 3, persons)
  return { bytes: frame.bytes, rows: 1, content: () => frame.content }
}

it("carries a lane's commits and rotations to the main thread in order, each frame decoded there only when asked", () => {
  vi.useFakeTimers()
  const sent: Array<{ events: LaneEvent[]; frames: ArrayBuffer }> = []
  const reports = new LaneReports((events, frames) => sent.push({ events, frames }))
  const first = committed('a', [{ distinctId: 'user-1', set: { plan: 'pro' } }])
  const second = committed('b', ['user-2'])
  reports.commit(1, 100, [first])
  reports.rotate(1, 100)
  reports.commit(2, 60, [second])
  expect(sent).toHaveLength(0)
  vi.advanceTimersByTime(20)

  expect(sent).toHaveLength(1)
  const [{ events, frames }] = sent as [{ events: LaneEvent[]; frames: ArrayBuffer }]
  expect(events.map((e) => [e.kind, e.seq])).toEqual([
    ['commit', 1],
    ['rotate', 1],
    ['commit', 2],
  ])
  const received = events.flatMap((e) => (e.kind === 'commit' ? committedFrames(e.frames, frames) : []))
  expect(received.map((f) => f.rows)).toEqual([1, 1])
  expect(received.map((f) => f.bytes.length)).toEqual([first.bytes.length, second.bytes.length])
  for (const [i, original] of [first, second].entries()) {
    const { body, ...rest } = received[i]!.content()
    const { body: originalBody, ...originalRest } = original.content()
    expect(rest).toEqual(originalRest)
    expect(body.toString()).toBe(originalBody.toString())
  }
})
