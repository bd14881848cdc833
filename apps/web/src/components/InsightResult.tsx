import { lazy, Suspense } from 'react'
import { pointOfRow, whyNoActors, type ChosenPoint } from '../insightActors'
import type { InsightSource } from '../insightQuery'
import { ChartOrTable, colourOf, formatValue, PointButton, type ChartSeries } from './Chart'
import { Loading } from './States'

// Its own chunk: only a paths insight loads its drawing.
const PathsChart = lazy(() => import('./PathsChart').then((m) => ({ default: m.PathsChart })))

type Row = Record<string, unknown>
const rows = (results: unknown): Row[] =>
  Array.isArray(results) ? results.filter((r): r is Row => typeof r === 'object' && r !== null) : []
const nums = (v: unknown): number[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'number' ? x : Number(x) || 0)) : [])
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '')

/** A trend row's name: its label, with the period it compares when comparing. */
function seriesLabel(row: Row): string {
  const label = text(row.label) || 'All events'
  return row.compare_label === 'previous' ? `${label} (previous period)` : label
}

type OnPoint = ((chosen: ChosenPoint) => void) | undefined

/**
 * The answer of `/query/` for an insight kind, drawn as PostHog draws it, each with its table.
 * With `onPoint`, each number of a table (and each point of a chart) opens its persons.
 */
export function InsightResult({
  source,
  results,
  title,
  onPoint: wanted,
}: {
  source: InsightSource
  results: unknown
  title: string
  onPoint?: OnPoint
}) {
  const why = wanted ? whyNoActors(source) : undefined
  const onPoint = why ? undefined : wanted
  return (
    <>
      <Drawn source={source} results={results} title={title} onPoint={onPoint} />
      {why && <p className="muted">{why}</p>}
    </>
  )
}

function Drawn({ source, results, title, onPoint }: { source: InsightSource; results: unknown; title: string; onPoint: OnPoint }) {
  const list = rows(results)
  if (source.kind === 'FunnelsQuery') return <Funnel results={results} title={title} onPoint={onPoint} />
  if (source.kind === 'RetentionQuery') return <Retention rows={list} title={title} onPoint={onPoint} />
  if (source.kind === 'PathsQuery') {
    return (
      <Suspense fallback={<Loading what="the paths chart" />}>
        <PathsChart results={results} title={title} />
      </Suspense>
    )
  }
  if (list.length === 0) return <p className="muted">No data in this date range.</p>
  const display = (source.trendsFilter as { display?: string } | undefined)?.display
  if (source.kind === 'TrendsQuery' && (display === 'BoldNumber' || display === 'ActionsTable' || display === 'ActionsPie')) {
    const onTotal = onPoint
      ? (i: number, value: number) => {
          const chosen = pointOfRow(source, list[i]!, undefined, value)
          if (chosen) onPoint(chosen)
        }
      : undefined
    return <Totals rows={list} title={title} asNumber={display === 'BoldNumber'} asPie={display === 'ActionsPie'} onTotal={onTotal} />
  }
  const first = list.find((r) => Array.isArray(r.labels)) ?? list[0]!
  const labels = Array.isArray(first.labels) ? first.labels.map(text) : []
  const series: ChartSeries[] = list.map((row) => ({
    label: source.kind === 'LifecycleQuery' ? text(row.status) || seriesLabel(row) : seriesLabel(row),
    data: nums(row.data),
  }))
  const kind = source.kind === 'TrendsQuery' && display !== 'ActionsBar' ? 'line' : 'bar'
  const pointAt = onPoint
    ? (s: number, bucket: number) => {
        const chosen = pointOfRow(source, list[s]!, bucket, series[s]?.data[bucket] ?? 0)
        if (chosen) onPoint(chosen)
      }
    : undefined
  return (
    <ChartOrTable
      labels={labels}
      series={series}
      kind={kind}
      title={title}
      firstColumn={source.kind === 'StickinessQuery' ? 'Active for' : 'Date'}
      onPoint={pointAt}
    />
  )
}

/** Each series' total over the range: one big number each, or a table (under a pie of the totals' shares). */
function Totals({
  rows: list,
  title,
  asNumber,
  asPie = false,
  onTotal,
}: {
  rows: Row[]
  title: string
  asNumber: boolean
  asPie?: boolean
  onTotal: ((row: number, value: number) => void) | undefined
}) {
  const totals = list.map((row) => ({
    label: seriesLabel(row),
    value: typeof row.aggregated_value === 'number' ? row.aggregated_value : nums(row.data).reduce((a, b) => a + b, 0),
  }))
  if (asNumber) {
    return (
      <dl className="numbers">
        {totals.map((t, i) => (
          <div key={i}>
            <dt>{t.label}</dt>
            <dd>{onTotal ? <PointButton value={t.value} of={t.label} onClick={() => onTotal(i, t.value)} /> : formatValue(t.value)}</dd>
          </div>
        ))}
      </dl>
    )
  }
  const table = (
    <div className="table-wrap">
      <table aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Series</th>
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((t, i) => (
            <tr key={i}>
              <th scope="row">{t.label}</th>
              <td>{onTotal ? <PointButton value={t.value} of={t.label} onClick={() => onTotal(i, t.value)} /> : formatValue(t.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
  if (!asPie) return table
  return (
    <div className="stack">
      <Pie title={title} slices={totals} />
      {table}
    </div>
  )
}

/** The totals as slices of a circle, each the series' colour; the table beside it holds the numbers. */
function Pie({ title, slices }: { title: string; slices: { label: string; value: number }[] }) {
  const sum = slices.reduce((a, s) => a + Math.max(0, s.value), 0)
  if (sum === 0) return <p className="muted">Nothing to share out in this date range.</p>
  const point = (fraction: number) => {
    const angle = 2 * Math.PI * fraction - Math.PI / 2
    return `${(100 + 90 * Math.cos(angle)).toFixed(3)} ${(100 + 90 * Math.sin(angle)).toFixed(3)}`
  }
  let start = 0
  const paths = slices.map((slice, i) => {
    const share = Math.max(0, slice.value) / sum
    const from = start
    start += share
    // A whole circle is two half arcs: one arc cannot end where it starts.
    const d =
      share >= 1
        ? `M ${point(0)} A 90 90 0 1 1 ${point(0.5)} A 90 90 0 1 1 ${point(0)} Z`
        : `M 100 100 L ${point(from)} A 90 90 0 ${share > 0.5 ? 1 : 0} 1 ${point(start)} Z`
    return <path key={i} d={d} fill={colourOf(i)} data-series={slice.label} />
  })
  const words = slices.map((s) => `${s.label} ${((Math.max(0, s.value) / sum) * 100).toFixed(1)}%`).join(', ')
  return (
    <svg className="pie" viewBox="0 0 200 200" width="200" height="200" role="img" aria-label={`${title}: ${words}`}>
      {paths}
    </svg>
  )
}

interface Step {
  name: string
  count: number
  breakdown: unknown
}

/** A funnel's steps (one list, or a list per breakdown value), as bars of each step's count and conversion. */
function Funnel({ results, title, onPoint }: { results: unknown; title: string; onPoint: OnPoint }) {
  const raw = Array.isArray(results) ? results : []
  const groups: { label: string; steps: Step[] }[] = (raw.length > 0 && Array.isArray(raw[0]) ? (raw as unknown[][]) : [raw]).map(
    (group) => {
      const steps = rows(group)
      const value = steps[0]?.breakdown_value
      return {
        label: Array.isArray(value) ? value.map(text).join(', ') : text(value),
        steps: steps.map((s) => ({
          name: text(s.custom_name) || text(s.name) || 'All events',
          count: typeof s.count === 'number' ? s.count : 0,
          breakdown: s.breakdown_value,
        })),
      }
    },
  )
  if (groups.every((g) => g.steps.length === 0)) return <p className="muted">No data in this date range.</p>
  const percent = (count: number, first: number) => (first === 0 ? 0 : (count / first) * 100)
  return (
    <div className="stack-wide">
      {groups.map((group, g) => {
        const first = group.steps[0]?.count ?? 0
        return (
          <section key={g} aria-label={group.label ? `${title}: ${group.label}` : title}>
            {group.label && <h3>{group.label}</h3>}
            <ol className="funnel">
              {group.steps.map((step, i) => (
                <li key={i}>
                  <span>
                    {i + 1}. {step.name}
                  </span>
                  <span className="funnel-track" aria-hidden="true">
                    <span className="funnel-bar" style={{ width: `${percent(step.count, first)}%`, background: colourOf(g) }} />
                  </span>
                </li>
              ))}
            </ol>
            <div className="table-wrap">
              <table aria-label={group.label ? `${title} steps: ${group.label}` : `${title} steps`}>
                <thead>
                  <tr>
                    <th scope="col">Step</th>
                    <th scope="col">Persons</th>
                    <th scope="col">Conversion from the first step</th>
                    <th scope="col">From the step before</th>
                    {onPoint && <th scope="col">Dropped off</th>}
                  </tr>
                </thead>
                <tbody>
                  {group.steps.map((step, i) => (
                    <tr key={i}>
                      <th scope="row">
                        {i + 1}. {step.name}
                      </th>
                      <td>
                        {onPoint ? (
                          <PointButton
                            value={step.count}
                            of={stepName(group.label, i, step.name)}
                            onClick={() => onPoint(funnelPoint(step, i, group.label, false, step.count))}
                          />
                        ) : (
                          step.count
                        )}
                      </td>
                      <td>{percent(step.count, first).toFixed(1)}%</td>
                      <td>{i === 0 ? '—' : `${percent(step.count, group.steps[i - 1]!.count).toFixed(1)}%`}</td>
                      {onPoint && (
                        <td>
                          {i === 0 ? (
                            '—'
                          ) : (
                            <PointButton
                              value={group.steps[i - 1]!.count - step.count}
                              of={`those who dropped off before ${stepName(group.label, i, step.name)}`}
                              onClick={() => onPoint(funnelPoint(step, i, group.label, true, group.steps[i - 1]!.count - step.count))}
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        )
      })}
    </div>
  )
}

const stepName = (group: string, i: number, name: string) => `step ${i + 1}, ${name}${group ? `, ${group}` : ''}`

/** The persons of a funnel's step `i` (from 0): those who reached it, or who dropped off before it. */
function funnelPoint(step: Step, i: number, group: string, droppedOff: boolean, persons: number): ChosenPoint {
  return {
    point: {
      kind: 'FunnelsQuery',
      step: i + 1,
      droppedOff,
      ...(step.breakdown !== undefined && step.breakdown !== null ? { breakdown: step.breakdown } : {}),
    },
    title: droppedOff ? `dropped off before ${stepName(group, i, step.name)}` : stepName(group, i, step.name),
    persons,
  }
}

/** Retention's cohorts: a row per starting period, the persons who came back in each period after. */
function Retention({ rows: list, title, onPoint }: { rows: Row[]; title: string; onPoint: OnPoint }) {
  if (list.length === 0) return <p className="muted">No data in this date range.</p>
  const periods = rows(list[0]!.values).map((v) => text(v.label))
  return (
    <div className="table-wrap">
      <table aria-label={title} className="retention">
        <thead>
          <tr>
            <th scope="col">Cohort</th>
            {periods.map((p) => (
              <th scope="col" key={p}>
                {p}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {list.map((row, r) => {
            const values = rows(row.values).map((v) => (typeof v.count === 'number' ? v.count : 0))
            const size = values[0] ?? 0
            const cohort = text(row.date).slice(0, 10) || text(row.label)
            return (
              <tr key={r}>
                <th scope="row">{cohort}</th>
                {values.map((count, i) => (
                  <td key={i}>
                    {onPoint && i === 0 ? (
                      <PointButton
                        value={count}
                        of={`the cohort of ${cohort}`}
                        onClick={() =>
                          onPoint({ point: { kind: 'RetentionQuery', interval: r }, title: `the cohort of ${cohort}`, persons: count })
                        }
                      />
                    ) : (
                      count
                    )}
                    {size > 0 && i > 0 && <span className="muted"> ({((count / size) * 100).toFixed(0)}%)</span>}
                  </td>
                ))}
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
