import { describe, expect, it } from 'vitest'
import { encodeFrame, writtenFrameContent } from './frames'

describe('writtenFrameContent', () => {
  it('gives back what a frame was written with, person intents included', () => {
    const persons = [
      'anon-1',
      { distinctId: 'user-2', set: { plan: 'pro' }, setOnce: { $initial_os: 'Mac OS X' }, mergeWith: 'anon-2', personEvent: true as const },
    ]
    const frame = encodeFrame(['{"uuid":"a"}\n', '{"uuid":"ünïcode"}\n'], [[7, '$pageview', 1_700_000_000_000]], 7, persons)
    const content = writtenFrameContent(frame.bytes)
    expect(content).toEqual({ ...frame.content, body: expect.any(Buffer) })
    expect(content.body.toString('utf8')).toBe(frame.content.body.toString('utf8'))
  })

  it('refuses bytes that are not exactly one frame', () => {
    const { bytes } = encodeFrame(['{"uuid":"a"}\n'], [], 1, ['d'])
    expect(() => writtenFrameContent(bytes.subarray(0, bytes.length - 1))).toThrow(/not one whole frame/)
    expect(() => writtenFrameContent(Buffer.concat([bytes, bytes]))).toThrow(/not one whole frame/)
  })
})
