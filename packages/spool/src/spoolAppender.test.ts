import { describe, expect, it } from 'vitest'
import { SpoolAppender } from './spoolAppender'
import { SpoolBytes } from './spoolBytes'

const writer = { append: () => Promise.resolve() }

describe('SpoolAppender', () => {
  it('has no room while the disk is below its reserve, though the spool is under its bound', () => {
    let diskHasRoom = true
    const appender = new SpoolAppender(writer, new SpoolBytes(), 1000, { hasRoom: () => diskHasRoom })
    expect(appender.hasRoom(100)).toBe(true)
    diskHasRoom = false
    expect(appender.hasRoom(100)).toBe(false)
    diskHasRoom = true
    expect(appender.hasRoom(100)).toBe(true)
    expect(appender.hasRoom(1001)).toBe(false)
  })
})
