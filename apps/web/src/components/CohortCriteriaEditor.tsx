import {
  CONDITION_KINDS,
  edit,
  newCondition,
  TIME_INTERVALS,
  type Condition,
  type ConditionKind,
  type Criteria,
  type Junction,
  type TimeInterval,
} from '../cohortCriteria'
import { Field, KeptCondition, PersonConditionFields } from './ConditionFields'

/** A cohort another condition may name: its id and name. */
export interface CohortChoice {
  id: number
  name: string | null
}

/**
 * A dynamic cohort's conditions: groups joined by AND or OR, each of person-property,
 * performed-event and in-cohort conditions joined by its own. Controlled: each change is a new
 * `Criteria` handed to `onChange`. Its inputs are `required` where the service needs a value, so
 * the form around it does not submit an unfinished condition.
 */
export function CohortCriteriaEditor({
  value,
  cohorts,
  onChange,
}: {
  value: Criteria
  /** The cohorts an "in cohort" condition may name (not the one being edited). */
  cohorts: readonly CohortChoice[]
  onChange: (next: Criteria) => void
}): React.JSX.Element {
  const joiner = value.type === 'OR' ? 'or' : 'and'
  return (
    <fieldset className="stack-wide">
      <legend>Who is in the cohort</legend>
      <div className="row">
        <Field label="Persons who match">
          <select value={value.type} onChange={(e) => onChange(edit.setType(value, e.target.value as Junction))}>
            <option value="OR">any of these groups</option>
            <option value="AND">all of these groups</option>
          </select>
        </Field>
      </div>
      {value.groups.length === 0 && <p className="muted">No conditions yet: the cohort has no one in it. Add a group.</p>}
      {value.groups.map((group, g) => (
        <div key={g} className="stack-wide">
          {g > 0 && (
            <p className="muted" style={{ margin: 0 }}>
              {joiner}
            </p>
          )}
          <fieldset className="stack-wide">
            <legend>Group {g + 1}</legend>
            <div className="row">
              <Field label="Matches">
                <select value={group.type} onChange={(e) => onChange(edit.setGroupType(value, g, e.target.value as Junction))}>
                  <option value="AND">all of its conditions</option>
                  <option value="OR">any of its conditions</option>
                </select>
              </Field>
            </div>
            {group.conditions.map((condition, c) => (
              <div key={c} role="group" aria-label={`Condition ${c + 1}`} className="toolbar" style={{ marginBottom: 0 }}>
                <ConditionFields
                  condition={condition}
                  cohorts={cohorts}
                  onChange={(next) => onChange(edit.setCondition(value, g, c, next))}
                />
                <button type="button" onClick={() => onChange(edit.removeCondition(value, g, c))}>
                  Remove condition<span className="visually-hidden"> {c + 1}</span>
                </button>
              </div>
            ))}
            <div className="row">
              <button type="button" onClick={() => onChange(edit.addCondition(value, g))}>
                Add condition<span className="visually-hidden"> to group {g + 1}</span>
              </button>
              <button type="button" className="danger" onClick={() => onChange(edit.removeGroup(value, g))}>
                Remove group {g + 1}
              </button>
            </div>
          </fieldset>
        </div>
      ))}
      <div className="row">
        <button type="button" onClick={() => onChange(edit.addGroup(value))}>
          Add group
        </button>
      </div>
    </fieldset>
  )
}

function ConditionFields({
  condition,
  cohorts,
  onChange,
}: {
  condition: Condition
  cohorts: readonly CohortChoice[]
  onChange: (next: Condition) => void
}) {
  if (condition.kind === 'other') return <KeptCondition raw={condition.raw} editor="editor" />
  const kind = (
    <Field label="Condition type">
      <select value={condition.kind} onChange={(e) => onChange(newCondition(e.target.value as ConditionKind))}>
        {CONDITION_KINDS.map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
    </Field>
  )
  switch (condition.kind) {
    case 'person':
      return (
        <>
          {kind}
          <PersonConditionFields condition={condition} onChange={onChange} propertyLabel="Property" />
        </>
      )
    case 'behavioral':
      return (
        <>
          {kind}
          <Field label="Did">
            <select
              value={condition.negated ? 'not' : 'did'}
              onChange={(e) => onChange({ ...condition, negated: e.target.value === 'not' })}
            >
              <option value="did">performed</option>
              <option value="not">did not perform</option>
            </select>
          </Field>
          <Field label="Event">
            <input
              required
              value={condition.event}
              placeholder="$pageview"
              onChange={(e) => onChange({ ...condition, event: e.target.value })}
            />
          </Field>
          <Field label="In the last">
            <input
              required
              type="number"
              min={1}
              step={1}
              value={condition.amount}
              onChange={(e) => onChange({ ...condition, amount: e.target.value })}
            />
          </Field>
          <Field label="Period">
            <select value={condition.interval} onChange={(e) => onChange({ ...condition, interval: e.target.value as TimeInterval })}>
              {TIME_INTERVALS.map(([interval, label]) => (
                <option key={interval} value={interval}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
        </>
      )
    case 'cohort':
      return (
        <>
          {kind}
          <Field label="Membership">
            <select
              value={condition.negated ? 'not' : 'in'}
              onChange={(e) => onChange({ ...condition, negated: e.target.value === 'not' })}
            >
              <option value="in">is in</option>
              <option value="not">is not in</option>
            </select>
          </Field>
          <Field label="Cohort">
            <select required value={condition.cohortId} onChange={(e) => onChange({ ...condition, cohortId: e.target.value })}>
              <option value="">Choose a cohort</option>
              {cohorts.map((cohort) => (
                <option key={cohort.id} value={String(cohort.id)}>
                  {cohort.name || `Cohort ${cohort.id}`}
                </option>
              ))}
              {condition.cohortId !== '' && !cohorts.some((c) => String(c.id) === condition.cohortId) && (
                <option value={condition.cohortId}>Cohort {condition.cohortId}</option>
              )}
            </select>
          </Field>
        </>
      )
  }
}
