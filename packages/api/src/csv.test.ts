import { describe, expect, it } from 'vitest'
import { toCsv, wantsCsv } from './csv'

describe('toCsv', () => {
  it('gives each nested value its own dotted column, array items by index', () => {
    const csv = toCsv([{ id: 1, properties: { $browser: 'Firefox', nested: { deep: 2 } }, elements: [{ tag_name: 'a' }] }], [])
    expect(csv).toBe('id,properties.$browser,properties.nested.deep,elements.0.tag_name\n1,Firefox,2,a\n')
  })

  it('heads the columns of every row in order of first appearance, leaving cells a row lacks empty', () => {
    expect(toCsv([{ a: 1 }, { b: 2, a: 3 }], [])).toBe('a,b\n1,\n3,2\n')
  })

  it('sorts the columns by code point when asked, as PostHog’s renderer does without a header', () => {
    const rows = [{ name: 'a', properties: { plan: 'pro', Zone: 1 }, distinct_ids: ['x', 'y'], email: 'a@b.c' }]
    expect(toCsv(rows, [], { sortColumns: true }).split('\n')[0]).toBe(
      'distinct_ids.0,distinct_ids.1,email,name,properties.Zone,properties.plan',
    )
  })

  it('writes booleans as true and false, null as an empty cell, and an empty object or list as an empty cell', () => {
    expect(toCsv([{ yes: true, no: false, none: null, obj: {}, list: [] }], [])).toBe('yes,no,none,obj,list\ntrue,false,,,\n')
  })

  it('quotes cells with commas, quotes or line breaks', () => {
    expect(toCsv([{ name: 'a, b', quote: 'say "hi"', lines: 'x\ny' }], [])).toBe('name,quote,lines\n"a, b","say ""hi""","x\ny"\n')
  })

  it('makes cells and column names that a spreadsheet would run as formulas inert with a leading quote', () => {
    const csv = toCsv(
      [
        {
          a: '=HYPERLINK("http://evil")',
          b: '+1',
          c: '-2+3',
          d: '@SUM(A1)',
          e: '\tx',
          f: '\rx',
          g: 'fine',
          n: -5,
          properties: { '=x': 1 },
        },
      ],
      [],
    )
    expect(csv.split('\n')[0]).toBe('a,b,c,d,e,f,g,n,properties.=x')
    expect(csv.split('\n')[1]).toBe(`"'=HYPERLINK(""http://evil"")",'+1,'-2+3,'@SUM(A1),'\tx,"'\rx",fine,-5,1`)
    expect(toCsv([{ ['=cmd']: 1 }], []).split('\n')[0]).toBe("'=cmd")
  })

  it('answers no rows with the header of the given fields, or nothing without fields', () => {
    expect(toCsv([], ['id', 'name'])).toBe('id,name\n')
    expect(toCsv([], [])).toBe('')
  })
})

describe('wantsCsv', () => {
  const url = (query: string) => new URL(`http://burrow.test/api/projects/1/events/${query}`)

  it('follows format=csv or format=json, whatever the Accept header', () => {
    expect(wantsCsv(url('?format=csv'), undefined)).toBe(true)
    expect(wantsCsv(url('?format=CSV'), 'application/json')).toBe(true)
    expect(wantsCsv(url('?format=json'), 'text/csv')).toBe(false)
  })

  it('follows the first media type of the Accept header without a format', () => {
    expect(wantsCsv(url(''), 'text/csv; charset=utf-8, application/json')).toBe(true)
    expect(wantsCsv(url(''), 'application/json, text/csv')).toBe(false)
    expect(wantsCsv(url(''), undefined)).toBe(false)
  })
})
