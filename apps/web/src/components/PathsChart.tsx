import { useState } from 'react'
import {
  bySessions,
  edgesOf,
  formatDuration,
  itemLabel,
  itemOf,
  layoutPaths,
  linkPath,
  linkWords,
  mostItemsInAStep,
  type PathEdge,
  type PathNode,
} from '../pathsLayout'
import { colourOf } from './Chart'
import './PathsChart.css'

const COLUMN_WIDTH = 220
const NODE_WIDTH = 12
const GAP = 24
/** Room around the drawing for the labels of the top and bottom bars. */
const PAD = 12
/** Past this, a label is cut (its whole name is in its title and in the table). */
const LABEL_CHARS = 26

const shortName = (name: string) => (name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name)

/**
 * A paths insight as PostHog draws it: a column per step, a bar per item sized by its sessions,
 * bands between them as wide as the links' counts; hovering or focusing a band reads it out. A
 * "Show as table" switch lists the same links.
 */
export function PathsChart({ results, title }: { results: unknown; title: string }) {
  const [asTable, setAsTable] = useState(false)
  const edges = edgesOf(results)
  if (edges.length === 0) return <p className="muted">No paths in this date range.</p>
  return (
    <div className="stack-wide">
      <div className="row">
        <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          Show as table
        </button>
      </div>
      {asTable ? <PathsTable edges={edges} title={title} /> : <PathsDrawing edges={edges} title={title} />}
    </div>
  )
}

function PathsDrawing({ edges, title }: { edges: PathEdge[]; title: string }) {
  const [active, setActive] = useState<number>()
  const height = Math.min(640, Math.max(160, mostItemsInAStep(edges) * 56))
  const layout = layoutPaths(edges, { columnWidth: COLUMN_WIDTH, nodeWidth: NODE_WIDTH, height, gap: GAP })
  const last = Math.max(...layout.nodes.map((n) => n.column))
  const reading = active === undefined ? undefined : layout.links[active]
  return (
    <figure className="chart">
      <p className="muted paths-reading">{reading ? linkWords(reading.edge) : 'Hover over or focus a link to read how many took it.'}</p>
      <div className="paths-scroll">
        <svg
          className="paths-chart"
          role="group"
          aria-label={`${title}: a paths chart, a column per step; the same links are in its table`}
          width={layout.width + 2 * PAD}
          height={layout.height + 2 * PAD}
          viewBox={`${-PAD} ${-PAD} ${layout.width + 2 * PAD} ${layout.height + 2 * PAD}`}
        >
          {layout.links.map((link, i) => (
            <path
              key={i}
              className={i === active ? 'paths-link active' : 'paths-link'}
              d={linkPath(link, NODE_WIDTH)}
              stroke={colourOf(link.from.column)}
              strokeWidth={Math.max(1, link.width)}
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
            <Node key={node.id} node={node} labelLeft={node.column === last} />
          ))}
        </svg>
      </div>
    </figure>
  )
}

function Node({ node, labelLeft }: { node: PathNode; labelLeft: boolean }) {
  return (
    <g aria-hidden="true">
      <rect x={node.x} y={node.y} width={NODE_WIDTH} height={Math.max(1, node.height)} fill={colourOf(node.column)} rx={2} />
      <text
        x={labelLeft ? node.x - 6 : node.x + NODE_WIDTH + 6}
        y={node.y + node.height / 2}
        dominantBaseline="middle"
        textAnchor={labelLeft ? 'end' : 'start'}
      >
        <title>{itemLabel(node)}</title>
        {shortName(node.name)}
        <tspan className="paths-count"> {node.value}</tspan>
      </text>
    </g>
  )
}

/** The links as rows, most persons first: where from, where to, how many, how long it took on average. */
function PathsTable({ edges, title }: { edges: PathEdge[]; title: string }) {
  return (
    <div className="table-wrap">
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
