/**
 * A paths insight's answer laid out as a Sankey drawing: its links (`1_/home` → `2_/pricing`) read
 * into steps and names, a column per step, a bar per item sized by the sessions through it, and a
 * band per link as wide as the sessions that walked it. Pure: the chart only draws what this gives.
 */

/** A link of PostHog's PathsQuery answer; `averageTime` in milliseconds. */
export interface PathEdge {
  source: string
  target: string
  value: number
  averageTime: number
}

/** A path item at a step: `step` from 1, `name` the URL, screen or event. */
export interface PathItem {
  step: number
  name: string
}

export interface PathNode extends PathItem {
  id: string
  column: number
  /** Sessions through it: the larger of those arriving and those leaving. */
  value: number
  x: number
  y: number
  height: number
}

export interface PathLink {
  edge: PathEdge
  from: PathNode
  to: PathNode
  width: number
  /** The band's middle where it leaves `from` and where it reaches `to`. */
  sourceY: number
  targetY: number
}

export interface PathsLayout {
  nodes: PathNode[]
  links: PathLink[]
  width: number
  height: number
}

export interface LayoutOptions {
  /** From one column's bars to the next one's. */
  columnWidth: number
  nodeWidth: number
  height: number
  /** Between two bars of a column, enough for their labels not to meet. */
  gap: number
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0)

/** The links of a `/query/` answer, those without a source or target left out. */
export function edgesOf(results: unknown): PathEdge[] {
  if (!Array.isArray(results)) return []
  return results
    .filter(isRecord)
    .flatMap((r) =>
      typeof r.source === 'string' && typeof r.target === 'string'
        ? [{ source: r.source, target: r.target, value: num(r.value), averageTime: num(r.average_conversion_time) }]
        : [],
    )
}

/** `3_/pricing` as step 3 of `/pricing`; the name may itself hold `_`, only the first one splits. */
export function itemOf(id: string): PathItem {
  const cut = id.indexOf('_')
  const step = cut > 0 ? Number(id.slice(0, cut)) : NaN
  return Number.isInteger(step) ? { step, name: id.slice(cut + 1) } : { step: 1, name: id }
}

/** The links as the table lists them: most sessions first, the answer's own order among equals. */
export const bySessions = (edges: PathEdge[]): PathEdge[] => [...edges].sort((a, b) => b.value - a.value)

/** Columns of bars, each column stacked from the top, biggest first, and the bands between them. */
export function layoutPaths(edges: PathEdge[], options: LayoutOptions): PathsLayout {
  const { columnWidth, nodeWidth, height, gap } = options
  const byId = new Map<string, PathNode>()
  const flows = new Map<PathNode, { inflow: number; outflow: number }>()
  const nodeOf = (id: string) => {
    let node = byId.get(id)
    if (!node) {
      node = { id, ...itemOf(id), column: 0, value: 0, x: 0, y: 0, height: 0 }
      byId.set(id, node)
      flows.set(node, { inflow: 0, outflow: 0 })
    }
    return flows.get(node)!
  }
  for (const edge of edges) {
    nodeOf(edge.source).outflow += edge.value
    nodeOf(edge.target).inflow += edge.value
  }
  const nodes = [...byId.values()]
  // Steps may skip numbers once links are cut (edgeLimit): a column per step that has items.
  const steps = [...new Set(nodes.map((n) => n.step))].sort((a, b) => a - b)
  const columns = steps.map((step) =>
    nodes
      .filter((n) => n.step === step)
      .map((n) => Object.assign(n, { column: steps.indexOf(step), value: Math.max(flows.get(n)!.inflow, flows.get(n)!.outflow) }))
      .sort((a, b) => b.value - a.value || a.name.localeCompare(b.name)),
  )
  // One scale for every column, so that equal counts are equal heights across the drawing.
  const tallest = Math.max(1, ...columns.map((c) => c.reduce((sum, n) => sum + n.value, 0)))
  const crowded = Math.max(1, ...columns.map((c) => c.length))
  const scale = Math.max(0, height - gap * (crowded - 1)) / tallest
  for (const column of columns) {
    let y = 0
    for (const node of column) {
      node.x = node.column * columnWidth
      node.y = y
      node.height = node.value * scale
      y += node.height + gap
    }
  }
  // Each bar's bands stacked in the order of the bars at their other end, so that they cross least.
  const links: PathLink[] = edges.map((edge) => ({
    edge,
    from: byId.get(edge.source)!,
    to: byId.get(edge.target)!,
    width: edge.value * scale,
    sourceY: 0,
    targetY: 0,
  }))
  for (const node of nodes) {
    let out = node.y
    for (const link of links.filter((l) => l.from === node).sort((a, b) => a.to.y - b.to.y)) {
      link.sourceY = out + link.width / 2
      out += link.width
    }
    let into = node.y
    for (const link of links.filter((l) => l.to === node).sort((a, b) => a.from.y - b.from.y)) {
      link.targetY = into + link.width / 2
      into += link.width
    }
  }
  return {
    nodes: columns.flat(),
    links,
    width: Math.max(0, steps.length - 1) * columnWidth + nodeWidth,
    height,
  }
}

/**
 * A link's band as a filled shape, from the right edge of one bar to the left edge of the next:
 * its top edge curves across, its bottom edge curves back. Filled rather than a thick stroke, so
 * that the band is what the pointer hovers, and a level band still has a height.
 */
export function linkPath(link: PathLink, nodeWidth: number): string {
  const x0 = link.from.x + nodeWidth
  const x1 = link.to.x
  const middle = (x0 + x1) / 2
  const half = Math.max(0.5, link.width / 2)
  const [s0, s1, t0, t1] = [link.sourceY - half, link.sourceY + half, link.targetY - half, link.targetY + half]
  return `M ${x0} ${s0} C ${middle} ${s0}, ${middle} ${t0}, ${x1} ${t0} L ${x1} ${t1} C ${middle} ${t1}, ${middle} ${s1}, ${x0} ${s1} Z`
}

/** A time between two steps, as a person reads it: `45s`, `7m 5s`, `2h 10m`, `3d 4h`. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours}h ${minutes % 60}m`
  return `${Math.floor(hours / 24)}d ${hours % 24}h`
}

/** A step's item as labels and the table name it: `2. /pricing`. */
export const itemLabel = (item: PathItem): string => `${item.step}. ${item.name}`

/** A link in words, as its hover and its focus read. */
export const linkWords = (edge: PathEdge): string =>
  `${itemLabel(itemOf(edge.source))} → ${itemLabel(itemOf(edge.target))}: ${edge.value} ${edge.value === 1 ? 'person' : 'persons'}`

/** How many steps the links span and how many items the most crowded has: what sizes the drawing. */
export function shapeOf(edges: PathEdge[]): { steps: number; mostItems: number } {
  const perStep = new Map<number, number>()
  for (const id of new Set(edges.flatMap((e) => [e.source, e.target]))) {
    const { step } = itemOf(id)
    perStep.set(step, (perStep.get(step) ?? 0) + 1)
  }
  return { steps: perStep.size, mostItems: Math.max(0, ...perStep.values()) }
}
