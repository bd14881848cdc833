import { useRef } from 'react'
import { countWords, rateWords, TABS, tabLabels, type TableRow, type Tile, type WebTab } from '../webAnalytics'

/** The change from the previous period, marked good or bad by which way is good for the number. */
function Change({ tile }: { tile: Tile }) {
  if (tile.change === null) return null
  const up = tile.change > 0
  const bad = tile.change !== 0 && up === tile.increaseIsBad
  const words = `${up ? '+' : ''}${tile.change}%`
  return <span className={tile.change === 0 ? undefined : bad ? 'change-bad' : 'change-good'}>{words}</span>
}

/** The overview's numbers, each with the previous period's beside it. */
export function OverviewTiles({ tiles }: { tiles: Tile[] }) {
  return (
    <dl className="web-tiles" aria-label="Overview">
      {tiles.map((tile) => (
        <div className="web-tile" key={tile.key}>
          <dt>{tile.label}</dt>
          <dd className="web-value">{tile.value}</dd>
          <dd className="muted">
            Previous period: {tile.previous} <Change tile={tile} />
          </dd>
        </div>
      ))}
    </dl>
  )
}

/**
 * The tables' tabs, as the WAI-ARIA tabs pattern: one tab stop, arrow keys (and Home, End) move
 * between the tabs and choose the one they land on.
 */
export function BreakdownTabs({ tab, onChoose }: { tab: WebTab; onChoose: (tab: WebTab) => void }) {
  const buttons = useRef<Array<HTMLButtonElement | null>>([])
  const move = (event: React.KeyboardEvent, index: number) => {
    const last = TABS.length - 1
    const next =
      event.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined
    if (next === undefined) return
    event.preventDefault()
    buttons.current[next]?.focus()
    onChoose(TABS[next]!.tab)
  }
  return (
    <div className="web-tabs" role="tablist" aria-label="Breakdown">
      {TABS.map((t, i) => (
        <button
          key={t.tab}
          ref={(el) => {
            buttons.current[i] = el
          }}
          type="button"
          role="tab"
          id={`web-tab-${t.tab}`}
          aria-selected={t.tab === tab}
          aria-controls="web-panel"
          tabIndex={t.tab === tab ? 0 : -1}
          onClick={() => onChoose(t.tab)}
          onKeyDown={(event) => move(event, i)}
        >
          {t.label}
        </button>
      ))}
    </div>
  )
}

/** A tab's table: the breakdown's values with their visitors and views, most visitors first. */
export function StatsTable({ tab, rows }: { tab: WebTab; rows: TableRow[] }) {
  const { label, column } = tabLabels(tab)
  const bounce = rows.some((row) => row.bounceRate !== undefined)
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">{column}</th>
            <th scope="col" className="num">
              Visitors
            </th>
            <th scope="col" className="num">
              Views
            </th>
            {bounce && (
              <th scope="col" className="num">
                Bounce rate
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.value}>
              <th scope="row" className="web-key">
                {row.value}
              </th>
              <td className="num">{countWords(row.visitors)}</td>
              <td className="num">{countWords(row.views)}</td>
              {bounce && <td className="num">{rateWords(row.bounceRate)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
