import { useEffect, useRef, useState } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { TableToggle } from './TableToggle'

/** Series colours readable on both themes' backgrounds (mid tones, at least 3:1 against white and against #111318). */
export const PALETTE = ['#3b82f6', '#e8590c', '#0ca678', '#d6336c', '#8b5cf6', '#b08800', '#1098ad', '#868e96']
export const colourOf = (i: number): string => PALETTE[i % PALETTE.length]!

export interface ChartSeries {
  label: string
  data: number[]
}

/** The share of a bucket its bars take together. */
const GROUP = 0.8

/** A value as a chart's table and tooltips show it. */
export const formatValue = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(2))

const themeColour = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback

/**
 * Series over labelled buckets as lines or bars (uPlot, on a canvas), with an HTML legend; the
 * same numbers are offered as a table by whoever draws it (see SeriesTable).
 */
export function SeriesChart({
  labels,
  series,
  kind,
  title,
  onPoint,
}: {
  labels: string[]
  series: ChartSeries[]
  kind: 'line' | 'bar'
  title: string
  /** A click on a point or bar: its series and bucket. */
  onPoint?: ((series: number, bucket: number) => void) | undefined
}) {
  const ref = useRef<HTMLDivElement>(null)
  const theme = useThemeVersion()
  // Read at the click, so that a new handler does not draw the chart again.
  const pointRef = useRef(onPoint)
  pointRef.current = onPoint
  const clickable = onPoint !== undefined
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const axis = themeColour('--fg-muted', '#4f5562')
    const grid = themeColour('--border', '#c9ced8')
    // Bars stand side by side within a bucket: each series its own slice of GROUP (in buckets).
    const slice = GROUP / Math.max(series.length, 1)
    const barsOf = (k: number) =>
      uPlot.paths.bars?.({
        disp: {
          x0: { unit: 1, values: () => labels.map((_, i) => i - GROUP / 2 + k * slice) },
          size: { unit: 1, values: () => [slice] },
        },
      })
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 300),
      height: 300,
      // Room on the right for half of the last date, which is centred on the plot's edge.
      padding: [null, 44, null, null],
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: kind === 'bar' ? { time: false, range: () => [-0.5, labels.length - 0.5] } : { time: false } },
      axes: [
        {
          stroke: axis,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid },
          // Whole buckets only, far enough apart for a date to fit.
          space: 90,
          incrs: [1, 2, 3, 5, 7, 10, 14, 20, 30, 50, 100, 200, 500],
          values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (labels[i] ?? '') : '')),
        },
        { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: colourOf(i),
          width: 2,
          ...(kind === 'bar' ? { paths: barsOf(i), fill: colourOf(i), points: { show: false } } : {}),
        })),
      ],
    }
    const data: uPlot.AlignedData = [labels.map((_, i) => i), ...series.map((s) => s.data)]
    const plot = new uPlot(opts, data, el)
    // The point under the cursor: in its bucket, the bar the cursor is over, or the line nearest it.
    const click = () => {
      const bucket = plot.cursor.idx
      if (bucket === null || bucket === undefined || !pointRef.current) return
      let chosen = -1
      if (kind === 'bar') {
        const x = plot.posToVal(plot.cursor.left ?? 0, 'x')
        const k = Math.floor((x - (bucket - GROUP / 2)) / slice)
        if (k >= 0 && k < series.length) chosen = k
      } else {
        const y = plot.posToVal(plot.cursor.top ?? 0, 'y')
        let nearest = Infinity
        series.forEach((s, k) => {
          const distance = Math.abs((s.data[bucket] ?? 0) - y)
          if (distance < nearest) [nearest, chosen] = [distance, k]
        })
      }
      if (chosen >= 0) pointRef.current(chosen, bucket)
    }
    if (clickable) {
      plot.over.style.cursor = 'pointer'
      plot.over.addEventListener('click', click)
    }
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 300), height: 300 }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [labels, series, kind, theme, clickable])
  const persons = clickable ? ', where each number opens its persons' : ''
  return (
    <figure className="chart">
      <div
        ref={ref}
        role="img"
        aria-label={`${title}: a ${kind === 'bar' ? 'bar' : 'line'} chart; the same numbers are in its table${persons}`}
      />
      <figcaption>
        <ul className="legend">
          {series.map((s, i) => (
            <li key={i}>
              <span className="swatch" style={{ background: colourOf(i) }} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  )
}

/** A number that changes when the theme does (the toggle, or the system's), so that a canvas is drawn again in its colours. */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1)
    const observer = new MutationObserver(bump)
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
    const media = window.matchMedia('(prefers-color-scheme: dark)')
    media.addEventListener('change', bump)
    return () => {
      observer.disconnect()
      media.removeEventListener('change', bump)
    }
  }, [])
  return version
}

/** Series as a table: a row per bucket, a column per series; with `onPoint`, each number is a button. */
export function SeriesTable({
  labels,
  series,
  title,
  firstColumn,
  onPoint,
}: {
  labels: string[]
  series: ChartSeries[]
  title: string
  firstColumn: string
  onPoint?: ((series: number, bucket: number) => void) | undefined
}) {
  return (
    <div className="table-wrap">
      <table aria-label={title}>
        <thead>
          <tr>
            <th scope="col">{firstColumn}</th>
            {series.map((s, i) => (
              <th scope="col" key={i}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((label, row) => (
            <tr key={row}>
              <th scope="row">{label}</th>
              {series.map((s, i) => (
                <td key={i}>
                  {onPoint ? (
                    <PointButton value={s.data[row] ?? 0} of={`${s.label}, ${label}`} onClick={() => onPoint(i, row)} />
                  ) : (
                    formatValue(s.data[row] ?? 0)
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * A number that opens its persons: it reads as the number, and says whose it is to a screen
 * reader (its name starts with the number, as the eye reads it).
 */
export function PointButton({ value, of, onClick }: { value: number; of: string; onClick: () => void }) {
  return (
    <button type="button" className="link" aria-label={`${formatValue(value)}: the persons of ${of}`} onClick={onClick}>
      {formatValue(value)}
    </button>
  )
}

/** A chart with a "Show as table" switch: the same numbers, readable by everyone. */
export function ChartOrTable({
  labels,
  series,
  kind,
  title,
  firstColumn,
  onPoint,
}: {
  labels: string[]
  series: ChartSeries[]
  kind: 'line' | 'bar'
  title: string
  firstColumn: string
  onPoint?: ((series: number, bucket: number) => void) | undefined
}) {
  return (
    <TableToggle
      table={() => <SeriesTable labels={labels} series={series} title={title} firstColumn={firstColumn} onPoint={onPoint} />}
      chart={() => <SeriesChart labels={labels} series={series} kind={kind} title={title} onPoint={onPoint} />}
    />
  )
}
