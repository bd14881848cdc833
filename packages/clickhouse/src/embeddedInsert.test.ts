import { describe, expect, it } from 'vitest'
import { insertStatement } from './embeddedInsert'

describe('the embedded insert statement', () => {
  it('names the file as a string literal and puts the settings in its SETTINGS clause', () => {
    expect(
      insertStatement('events', "/data/it's\\here/1-2", 'JSONEachRow', {
        insert_deduplication_token: "a'b",
        max_partitions_per_insert_block: 0,
      }),
    ).toBe(
      "INSERT INTO events FROM INFILE '/data/it\\'s\\\\here/1-2' SETTINGS insert_deduplication_token = 'a\\'b', max_partitions_per_insert_block = 0 FORMAT JSONEachRow",
    )
    expect(insertStatement('default.person', '/d/1-3', 'JSONCompactEachRow', {})).toBe(
      "INSERT INTO default.person FROM INFILE '/d/1-3' FORMAT JSONCompactEachRow",
    )
  })

  it('refuses a table or setting name that is not a plain identifier', () => {
    expect(() => insertStatement('events; DROP TABLE events', '/d/1', 'JSONEachRow', {})).toThrow(/not a table name/)
    expect(() => insertStatement('events', '/d/1', 'JSONEachRow', { 'a = 1, b': 1 })).toThrow(/not a setting name/)
  })
})
