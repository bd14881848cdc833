import { describe, expect, it } from 'vitest'
import { edgesOf, formatDuration, itemOf, layoutPaths, linkWords, type PathEdge } from './pathsLayout'

const edge = (source: string, target: string, value: number, averageTime = 60_000): PathEdge => ({ source, target, value, averageTime })
const OPTIONS = { columnWidth: 200, nodeWidth: 10, height: 100, gap: 20 }

describe('the layout of a paths chart', () => {
  // Three sessions start at /home; two go on to /pricing, one to /docs; one of the two buys.
  const edges = [edge('1_/home', '2_/pricing', 2), edge('1_/home', '2_/docs', 1), edge('2_/pricing', '3_order_placed', 1)]

  it('puts each step in its own column and each item once, biggest first', () => {
    const { nodes, width } = layoutPaths(edges, OPTIONS)
    expect(nodes.map((n) => [n.column, n.name, n.value, n.x])).toEqual([
      [0, '/home', 3, 0],
      [1, '/pricing', 2, 200],
      [1, '/docs', 1, 200],
      [2, 'order_placed', 1, 400],
    ])
    expect(width).toBe(410)
  })

  it('sizes bars by their counts on one scale, the most crowded column filling the height with its gaps', () => {
    const { nodes } = layoutPaths(edges, OPTIONS)
    const [home, pricing, docs, order] = nodes
    // Column 2 holds two bars and a gap: 3 sessions over 100 − 20 px.
    expect(home!.height).toBeCloseTo(80)
    expect(pricing!.height).toBeCloseTo(160 / 3)
    expect(docs!.y).toBeCloseTo(160 / 3 + 20)
    expect(docs!.y + docs!.height).toBeCloseTo(100)
    expect(order!.height).toBeCloseTo(docs!.height)
  })

  it("gives each link a band as wide as its count, stacked within both bars' heights", () => {
    const { links, nodes } = layoutPaths(edges, OPTIONS)
    const home = nodes[0]!
    const toPricing = links.find((l) => l.to.name === '/pricing')!
    const toDocs = links.find((l) => l.to.name === '/docs')!
    expect(toPricing.width).toBeCloseTo((2 / 3) * home.height)
    // /pricing is above /docs, so its band leaves /home first.
    expect(toPricing.sourceY).toBeCloseTo(toPricing.width / 2)
    expect(toDocs.sourceY).toBeCloseTo(toPricing.width + toDocs.width / 2)
    expect(toDocs.targetY).toBeCloseTo(toDocs.to.y + toDocs.width / 2)
    const toOrder = links.find((l) => l.to.name === 'order_placed')!
    expect(toOrder.from).toBe(nodes[1])
  })

  it('counts a bar by the larger of what arrives and what leaves', () => {
    const { nodes } = layoutPaths([edge('1_/a', '2_/b', 1), edge('1_/c', '2_/b', 1), edge('2_/b', '3_/d', 5)], OPTIONS)
    expect(nodes.find((n) => n.name === '/b')!.value).toBe(5)
  })
})

describe("a paths answer's links", () => {
  it('are read from /query/ rows, their step split from a name that may hold an underscore', () => {
    expect(
      edgesOf([
        { source: '1_/home', target: '2_sign_up', value: 3, average_conversion_time: 4500.5 },
        { source: null, target: '2_x', value: 1 },
        'nonsense',
      ]),
    ).toEqual([{ source: '1_/home', target: '2_sign_up', value: 3, averageTime: 4500.5 }])
    expect(itemOf('12_sign_up')).toEqual({ step: 12, name: 'sign_up' })
    expect(itemOf('...')).toEqual({ step: 1, name: '...' })
  })

  it('read as words and times a person reads', () => {
    expect(linkWords(edge('1_/home', '2_/pricing', 2))).toBe('1. /home → 2. /pricing: 2 persons')
    expect(linkWords(edge('1_/home', '2_/pricing', 1))).toBe('1. /home → 2. /pricing: 1 person')
    expect([4_400, 425_000, 7_800_000, 100_000_000].map(formatDuration)).toEqual(['4s', '7m 5s', '2h 10m', '1d 3h'])
  })
})
