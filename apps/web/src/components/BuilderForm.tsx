import { useState } from 'react'
import {
  ALL_USERS,
  FUNNEL_BREAKDOWN_TYPES,
  DEFAULT_HISTOGRAM_BINS,
  DISPLAYS,
  formOf,
  INTERVALS,
  isBreakdownSet,
  isUrlProperty,
  KINDS,
  MATHS,
  MAX_BREAKDOWNS,
  needsProperty,
  ORDERS,
  PERIODS,
  queryOf,
  SMOOTHINGS,
  TRENDS_BREAKDOWN_TYPES,
  WINDOW_UNITS,
  type BreakdownForm,
  type BuilderForm as Form,
  type SeriesForm,
} from '../insightQuery'
import { PathsForm } from './PathsForm'
import { SelectField } from './SelectField'

const DATE_RANGES = [
  ['-24h', 'Last 24 hours'],
  ['-7d', 'Last 7 days'],
  ['-14d', 'Last 14 days'],
  ['-30d', 'Last 30 days'],
  ['-90d', 'Last 90 days'],
  ['-180d', 'Last 180 days'],
  ['mStart', 'This month'],
  ['-1y', 'Last year'],
  ['all', 'All time'],
] as const

/** One of the project's actions (a series may name it) or cohorts (a trend may break down by them). */
export interface ActionChoice {
  id: number
  name: string | null
}

const EVENT_SOURCE = 'event'
const ACTION_PREFIX = 'action:'
const actionLabel = (a: ActionChoice) => `Action: ${a.name || `#${a.id}`}`

/**
 * Whether a series (or a retention entity) is an event or which of the project's actions: shown
 * once the project has actions, or when the query names one (kept by its id when it is not listed).
 */
function SourceSelect({
  label,
  actionId,
  actions,
  onChange,
}: {
  label: string
  actionId: number | undefined
  actions: readonly ActionChoice[]
  onChange: (actionId: number | undefined) => void
}) {
  if (actions.length === 0 && actionId === undefined) return null
  return (
    <SelectField
      label={label}
      value={actionId === undefined ? EVENT_SOURCE : `${ACTION_PREFIX}${actionId}`}
      options={[[EVENT_SOURCE, 'An event'], ...actions.map((a) => [`${ACTION_PREFIX}${a.id}`, actionLabel(a)] as const)]}
      otherLabel={(v) => `Action #${v.slice(ACTION_PREFIX.length)}`}
      onChange={(v) => onChange(v === EVENT_SOURCE ? undefined : Number(v.slice(ACTION_PREFIX.length)))}
    />
  )
}

/**
 * The insight builder's controls. Choices apply at once; typed text (event and property names)
 * applies with "Apply" (or Enter), so that the chart is not asked for at each key.
 */
export function BuilderForm({
  form,
  eventNames,
  actions = [],
  cohorts = [],
  onApply,
}: {
  form: Form
  eventNames: string[]
  /** The project's actions, each a series may be instead of an event. */
  actions?: readonly ActionChoice[]
  /** The project's cohorts, which a trend may break down by. */
  cohorts?: readonly ActionChoice[]
  onApply: (next: Form) => void
}) {
  const [draft, setDraft] = useState(form)
  const formKey = JSON.stringify(form)
  const [applied, setApplied] = useState(formKey)
  // A new URL (back, a link) shows its own query; the form's own change coming back keeps the
  // rows it cannot hold (a breakdown added, its property not typed yet).
  if (applied !== formKey) {
    setApplied(formKey)
    if (JSON.stringify(formOf(queryOf(draft))) !== formKey) setDraft(form)
  }
  const choose = (patch: Partial<Form>) => {
    const next = { ...draft, ...patch }
    setDraft(next)
    onApply(next)
  }
  const type = (patch: Partial<Form>) => setDraft({ ...draft, ...patch })
  const setSeries = (i: number, patch: Partial<SeriesForm>, apply: boolean) => {
    const series = draft.series.map((s, j) => (j === i ? { ...s, ...patch } : s))
    if (apply) choose({ series })
    else type({ series })
  }
  const maxBreakdowns = draft.kind === 'TrendsQuery' || draft.kind === 'FunnelsQuery' ? MAX_BREAKDOWNS[draft.kind] : 0
  const trends = draft.kind === 'TrendsQuery'
  // One row to type into even with no breakdown; a funnel shows its first only, and never cohorts.
  const shown = draft.breakdowns.filter((b) => trends || b.type !== 'cohort')
  const breakdownRows: BreakdownForm[] = (shown.length > 0 ? shown : [{ property: '', type: 'event' as const }]).slice(0, maxBreakdowns)
  const setBreakdown = (i: number, patch: Partial<BreakdownForm>, apply: boolean) => {
    const breakdowns = breakdownRows.map((b, j) => (j === i ? { ...b, ...patch } : b))
    // A row that asked nothing and still asks nothing leaves the query as it is.
    if (apply && (isBreakdownSet(breakdowns[i]!) || isBreakdownSet(breakdownRows[i]!))) choose({ breakdowns })
    else type({ breakdowns })
  }
  /** A row's new type: a property's name is no HogQL expression (nor the reverse), so the text goes when it changes. */
  const retype = (b: BreakdownForm, next: BreakdownForm['type']): Partial<BreakdownForm> =>
    (b.type === 'hogql') === (next === 'hogql') ? { type: next } : { type: next, property: '' }
  const propertyRows = breakdownRows.filter((b) => b.type !== 'cohort' && b.type !== 'hogql')
  const withBreakdown = breakdownRows.filter(isBreakdownSet).length
  const withProperty = propertyRows.filter(isBreakdownSet).length
  // Cohorts break down alone.
  const byCohort = breakdownRows.some((b) => b.type === 'cohort')
  const stepWord = draft.kind === 'FunnelsQuery' ? 'Step' : 'Series'
  const hasSeries = draft.kind !== 'RetentionQuery' && draft.kind !== 'PathsQuery'
  const oneSeries = draft.kind === 'LifecycleQuery'
  const withMath = draft.kind === 'TrendsQuery'

  return (
    <form
      className="builder"
      aria-label="Insight query"
      onSubmit={(e) => {
        e.preventDefault()
        onApply(draft)
      }}
    >
      <div className="row" role="group" aria-label="Insight type">
        {KINDS.map(([kind, label]) => (
          <button
            key={kind}
            type="button"
            aria-pressed={draft.kind === kind}
            onClick={() =>
              choose({
                kind,
                series:
                  kind === 'FunnelsQuery' && draft.series.length < 2
                    ? [...draft.series, { event: '', math: 'total', property: '' }]
                    : draft.series,
              })
            }
          >
            {label}
          </button>
        ))}
      </div>
      <datalist id="builder-event-names">
        {eventNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {hasSeries && (
        <fieldset>
          <legend>{draft.kind === 'FunnelsQuery' ? 'Steps' : 'Series'}</legend>
          {(oneSeries ? draft.series.slice(0, 1) : draft.series).map((s, i) => (
            <div className="toolbar" key={i}>
              <SourceSelect
                label={`${stepWord} ${i + 1} is`}
                actionId={s.actionId}
                actions={actions}
                onChange={(actionId) => setSeries(i, { actionId }, true)}
              />
              {s.actionId === undefined && (
                <label className="field">
                  <span>
                    {stepWord} {i + 1} event
                  </span>
                  <input
                    list="builder-event-names"
                    value={s.event}
                    placeholder="All events"
                    onChange={(e) => setSeries(i, { event: e.target.value }, false)}
                    onBlur={() => onApply(draft)}
                  />
                </label>
              )}
              {withMath && (
                <SelectField
                  label={`${stepWord} ${i + 1} counts`}
                  value={s.math}
                  options={MATHS}
                  onChange={(math) => setSeries(i, { math }, true)}
                />
              )}
              {withMath && needsProperty(s.math) && (
                <label className="field">
                  <span>
                    {stepWord} {i + 1} property
                  </span>
                  <input
                    required
                    value={s.property}
                    placeholder="amount"
                    onChange={(e) => setSeries(i, { property: e.target.value }, false)}
                    onBlur={() => onApply(draft)}
                  />
                </label>
              )}
              {!oneSeries && draft.series.length > (draft.kind === 'FunnelsQuery' ? 2 : 1) && (
                <button type="button" onClick={() => choose({ series: draft.series.filter((_, j) => j !== i) })}>
                  Remove {stepWord.toLowerCase()} {i + 1}
                </button>
              )}
            </div>
          ))}
          {!oneSeries && draft.series.length < 20 && (
            <button type="button" onClick={() => type({ series: [...draft.series, { event: '', math: 'total', property: '' }] })}>
              Add {stepWord.toLowerCase()}
            </button>
          )}
        </fieldset>
      )}
      {draft.kind === 'PathsQuery' && <PathsForm draft={draft} choose={choose} type={type} apply={() => onApply(draft)} />}
      {draft.kind === 'RetentionQuery' && (
        <div className="toolbar">
          <SourceSelect
            label="Start is"
            actionId={draft.startActionId}
            actions={actions}
            onChange={(startActionId) => choose({ startActionId })}
          />
          {draft.startActionId === undefined && (
            <label className="field">
              <span>Start event</span>
              <input list="builder-event-names" value={draft.startEvent} onChange={(e) => type({ startEvent: e.target.value })} />
            </label>
          )}
          <SourceSelect
            label="Return is"
            actionId={draft.returnActionId}
            actions={actions}
            onChange={(returnActionId) => choose({ returnActionId })}
          />
          {draft.returnActionId === undefined && (
            <label className="field">
              <span>Return event</span>
              <input list="builder-event-names" value={draft.returnEvent} onChange={(e) => type({ returnEvent: e.target.value })} />
            </label>
          )}
          <SelectField label="Period" value={draft.period} options={PERIODS} onChange={(period) => choose({ period })} />
          <label className="field">
            <span>Periods shown</span>
            <input
              type="number"
              min={1}
              max={120}
              value={draft.totalIntervals || ''}
              onChange={(e) => type({ totalIntervals: Math.max(0, Math.trunc(Number(e.target.value) || 0)) })}
            />
          </label>
        </div>
      )}
      <div className="toolbar">
        <SelectField
          label="Date range"
          value={draft.dateFrom}
          options={DATE_RANGES}
          otherLabel={(from) => `From ${from}`}
          onChange={(dateFrom) => choose({ dateFrom, dateTo: '' })}
        />
        {draft.kind !== 'RetentionQuery' && draft.kind !== 'FunnelsQuery' && draft.kind !== 'PathsQuery' && (
          <SelectField label="Interval" value={draft.interval} options={INTERVALS} onChange={(interval) => choose({ interval })} />
        )}
        {draft.kind === 'TrendsQuery' && draft.interval === 'day' && (
          <SelectField
            label="Smoothing"
            value={draft.smoothing}
            options={SMOOTHINGS}
            otherLabel={(n) => `${n}-day`}
            onChange={(smoothing) => choose({ smoothing })}
          />
        )}
        {draft.kind === 'TrendsQuery' && (
          <SelectField label="Display" value={draft.display} options={DISPLAYS} onChange={(display) => choose({ display })} />
        )}
        {draft.kind === 'TrendsQuery' && (
          <label className="field">
            <span>Formula (series by letter, e.g. A/B)</span>
            <input
              value={draft.formula}
              maxLength={400}
              placeholder="A+B"
              onChange={(e) => type({ formula: e.target.value })}
              onBlur={() => onApply(draft)}
            />
          </label>
        )}
        {(draft.kind === 'TrendsQuery' || draft.kind === 'StickinessQuery') && (
          <label className="row">
            <input type="checkbox" checked={draft.compare} onChange={(e) => choose({ compare: e.target.checked })} />
            Compare to previous period
          </label>
        )}
      </div>
      {maxBreakdowns > 0 && (
        <fieldset>
          <legend>{maxBreakdowns > 1 ? 'Breakdowns' : 'Breakdown'}</legend>
          {breakdownRows.map((b, i) => (
            <div className="toolbar" key={i}>
              {b.type === 'cohort' ? (
                <CohortChoices
                  label={`Breakdown ${i + 1} cohorts`}
                  cohorts={cohorts}
                  chosen={b.cohorts ?? []}
                  onChange={(chosen) => setBreakdown(i, { cohorts: chosen }, true)}
                />
              ) : (
                <label className="field">
                  <span>
                    Breakdown {i + 1} {b.type === 'hogql' ? 'HogQL expression' : 'property'}
                  </span>
                  <input
                    value={b.property}
                    placeholder={b.type === 'hogql' ? "if(properties.amount > 50, 'large', 'small')" : i === 0 ? '$browser' : 'plan'}
                    style={b.type === 'hogql' ? { width: 'min(36rem, 75vw)' } : undefined}
                    maxLength={b.type === 'hogql' ? 4000 : undefined}
                    onChange={(e) => setBreakdown(i, { property: e.target.value }, false)}
                    onBlur={() => onApply(draft)}
                  />
                </label>
              )}
              <SelectField
                label={`Breakdown ${i + 1} type`}
                value={b.type}
                options={trends && breakdownRows.length === 1 ? TRENDS_BREAKDOWN_TYPES : FUNNEL_BREAKDOWN_TYPES}
                onChange={(type) => setBreakdown(i, retype(b, type), true)}
              />
              {breakdownRows.length > 1 && (
                <button type="button" onClick={() => choose({ breakdowns: breakdownRows.filter((_, j) => j !== i) })}>
                  Remove breakdown {i + 1}
                </button>
              )}
            </div>
          ))}
          {draft.kind === 'TrendsQuery' && withProperty > 0 && (
            <div className="toolbar">
              {withBreakdown === 1 && withProperty === 1 && (
                <label className="row">
                  <input
                    type="checkbox"
                    checked={draft.histogramBins > 0}
                    onChange={(e) => choose({ histogramBins: e.target.checked ? DEFAULT_HISTOGRAM_BINS : 0 })}
                  />
                  Bin numeric values
                </label>
              )}
              {withBreakdown === 1 && withProperty === 1 && draft.histogramBins > 0 && (
                <label className="field">
                  <span>Bins</span>
                  {/* Its own text while typed (a cleared field is still binning); a count of 1 or more applies. */}
                  <input
                    key={applied}
                    type="number"
                    min={1}
                    max={100}
                    defaultValue={draft.histogramBins}
                    onChange={(e) => {
                      const bins = Math.trunc(Number(e.target.value))
                      if (bins >= 1) type({ histogramBins: Math.min(100, bins) })
                    }}
                    onBlur={() => onApply(draft)}
                  />
                </label>
              )}
              {propertyRows.some((r) => isUrlProperty(r.property)) && (
                <label className="row">
                  <input type="checkbox" checked={draft.normalizeUrl} onChange={(e) => choose({ normalizeUrl: e.target.checked })} />
                  Normalize URLs (no trailing /, ? or #)
                </label>
              )}
            </div>
          )}
          {!byCohort && breakdownRows.length < maxBreakdowns && isBreakdownSet(breakdownRows.at(-1)!) && (
            <button type="button" onClick={() => type({ breakdowns: [...breakdownRows, { property: '', type: 'event' }] })}>
              Add breakdown
            </button>
          )}
        </fieldset>
      )}
      {draft.kind === 'FunnelsQuery' && (
        <div className="toolbar">
          <label className="field">
            <span>Conversion window</span>
            <input
              type="number"
              min={1}
              value={draft.windowInterval || ''}
              onChange={(e) => type({ windowInterval: Math.max(0, Math.trunc(Number(e.target.value) || 0)) })}
            />
          </label>
          <SelectField
            label="Window unit"
            value={draft.windowUnit}
            options={WINDOW_UNITS}
            onChange={(windowUnit) => choose({ windowUnit })}
          />
          <SelectField label="Step order" value={draft.order} options={ORDERS} onChange={(order) => choose({ order })} />
        </div>
      )}
      <button type="submit" className="primary">
        Apply
      </button>
    </form>
  )
}

/** A cohort breakdown's cohorts, each a checkbox, and all users: each chosen is a row of the trend. */
function CohortChoices({
  label,
  cohorts,
  chosen,
  onChange,
}: {
  label: string
  cohorts: readonly ActionChoice[]
  chosen: (number | typeof ALL_USERS)[]
  onChange: (next: (number | typeof ALL_USERS)[]) => void
}) {
  // A cohort a link names that is not listed (deleted, or beyond the first page) stays chosen.
  const listed = new Set(cohorts.map((c) => c.id))
  const options: [number | typeof ALL_USERS, string][] = [
    ...cohorts.map((c): [number, string] => [c.id, c.name || `Cohort ${c.id}`]),
    ...chosen.flatMap((id): [number, string][] => (id !== ALL_USERS && !listed.has(id) ? [[id, `Cohort ${id}`]] : [])),
    [ALL_USERS, 'All users'],
  ]
  return (
    <fieldset className="row" style={{ flexWrap: 'wrap' }}>
      <legend>{label}</legend>
      {options.map(([id, name]) => (
        <label className="row" key={id}>
          <input
            type="checkbox"
            checked={chosen.includes(id)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, id] : chosen.filter((c) => c !== id))}
          />
          {name}
        </label>
      ))}
    </fieldset>
  )
}
