import { useEffect, useRef, useState } from 'react'
import {
  bySessions,
  edgesOf,
  formatDuration,
  itemLabel,
  itemOf,
  layoutPaths,
  linkPath,
  linkWords,
  shapeOf,
  type PathEdge,
  type PathNode,
} from '../pathsLayout'
import { colourOf } from './Chart'
import './PathsChart.css'
import { TableToggle } from './TableToggle'

/** From one column's bars to the next: as wide as fits the space, within these. */
const COLUMN_WIDTH = { min: 140, max: 220 }
const NODE_WIDTH = 12
const GAP = 24
/** Room around the drawing for the labels of the top and bottom bars. */
const PAD = 12
/** About how wide a character of a label is, to cut a label (its whole name is in its title and the table) before the next column. */
const CHAR_WIDTH = 7

/** A name cut to its end, where URLs of one site differ (`…shop.test/pricing`). */
const shortName = (name: string, chars: number) => (name.length > chars ? `…${name.slice(name.length - chars + 1)}` : name)

/** The width an element is given, 0 until it is laid out (or where nothing lays it out). */
function useWidth(ref: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const observer = new ResizeObserver(() => setWidth(el.clientWidth))
    observer.observe(el)
    return () => observer.disconnect()
  }, [ref])
  return width
}

/**
 * A paths insight as PostHog draws it: a column per step, a bar per item sized by its sessions,
 * bands between them as wide as the links' counts; hovering or focusing a band reads it out. A
 * "Show as table" switch lists the same links.
 */
export function PathsChart({ results, title }: { results: unknown; title: string }) {
  const edges = edgesOf(results)
  if (edges.length === 0) return <p className="muted">No paths in this date range.</p>
  return <TableToggle table={() => <PathsTable edges={edges} title={title} />} chart={() => <PathsDrawing edges={edges} title={title} />} />
}

function PathsDrawing({ edges, title }: { edges: PathEdge[]; title: string }) {
  const [active, setActive] = useState<number>()
  const box = useRef<HTMLDivElement>(null)
  const space = useWidth(box)
  const { steps, mostItems } = shapeOf(edges)
  // Each column and, past the last, its labels share the space; too narrow a space scrolls instead.
  const fitted = space > 0 ? Math.floor((space - NODE_WIDTH - PAD) / steps) : COLUMN_WIDTH.max
  const columnWidth = Math.min(COLUMN_WIDTH.max, Math.max(COLUMN_WIDTH.min, fitted))
  const labelChars = Math.floor((columnWidth - NODE_WIDTH - 12) / CHAR_WIDTH)
  const height = Math.min(640, Math.max(160, mostItems * 56))
  const layout = layoutPaths(edges, { columnWidth, nodeWidth: NODE_WIDTH, height, gap: GAP })
  const width = layout.width + columnWidth - NODE_WIDTH + PAD
  const reading = active === undefined ? undefined : layout.links[active]
  return (
    <figure className="chart">
      <p className="muted paths-reading">{reading ? linkWords(reading.edge) : 'Hover over or focus a link to read how many took it.'}</p>
      <div className="paths-scroll" ref={box}>
        <svg
          className="paths-chart"
          role="group"
          aria-label={`${title}: a paths chart, a column per step; the same links are in its table`}
          width={width}
          height={layout.height + 2 * PAD}
          viewBox={`${-PAD} ${-PAD} ${width} ${layout.height + 2 * PAD}`}
        >
          {layout.links.map((link, i) => (
            <path
              key={i}
              className={i === active ? 'paths-link active' : 'paths-link'}
              d={linkPath(link, NODE_WIDTH)}
              fill={colourOf(link.from.column)}
              role="img"
              tabIndex={0}
              aria-label={linkWords(link.edge)}
              onMouseEnter={() => setActive(i)}
              onMouseLeave={() => setActive(undefined)}
              onFocus={() => setActive(i)}
              onBlur={() => setActive(undefined)}
            />
          ))}
          {layout.nodes.map((node) => (
            <Node key={node.id} node={node} labelChars={labelChars} />
          ))}
        </svg>
      </div>
    </figure>
  )
}

function Node({ node, labelChars }: { node: PathNode; labelChars: number }) {
  return (
    <g aria-hidden="true">
      <rect x={node.x} y={node.y} width={NODE_WIDTH} height={Math.max(1, node.height)} fill={colourOf(node.column)} rx={2} />
      <text x={node.x + NODE_WIDTH + 6} y={node.y + node.height / 2} dominantBaseline="middle">
        <title>{itemLabel(node)}</title>
        {shortName(node.name, labelChars)}
        <tspan className="paths-count"> {node.value}</tspan>
      </text>
    </g>
  )
}

/** The links as rows, most persons first: where from, where to, how many, how long it took on average. */
function PathsTable({ edges, title }: { edges: PathEdge[]; title: string }) {
  return (
    // Focusable, so that a keyboard can scroll a table wider than a phone: its cells hold no button.
    <div className="table-wrap" tabIndex={0} role="region" aria-label={`${title}: links`}>
      <table aria-label={title}>
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Persons</th>
            <th scope="col">Average time</th>
          </tr>
        </thead>
        <tbody>
          {bySessions(edges).map((edge) => (
            <tr key={`${edge.source}\0${edge.target}`}>
              <th scope="row">{itemLabel(itemOf(edge.source))}</th>
              <td>{itemLabel(itemOf(edge.target))}</td>
              <td>{edge.value}</td>
              <td>{formatDuration(edge.averageTime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
