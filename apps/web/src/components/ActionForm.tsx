import type { Action, ActionWrite } from '@burrow/contracts'
import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { newStep, STEP_MATCHINGS, stepDraftOf, stepWriteOf, type StepDraft, type StepMatching } from '../actionSteps'
import { Field, PersonConditionFields } from './ConditionFields'
import { Refusal } from './States'

/** What a save sends: the name, the description and every step (which replace the saved ones). */
export type ActionChanges = Required<Pick<ActionWrite, 'name' | 'description' | 'steps'>>

/** A text field of a step with how it is compared (URL, text, link target). */
function MatchedField({
  label,
  value,
  matching,
  placeholder,
  onChange,
}: {
  label: string
  value: string
  matching: StepMatching
  placeholder: string
  onChange: (value: string, matching: StepMatching) => void
}) {
  return (
    <>
      <Field label={`${label} match`}>
        <select value={matching} onChange={(e) => onChange(value, e.target.value as StepMatching)}>
          {STEP_MATCHINGS.map(([m, words]) => (
            <option key={m} value={m}>
              {label} {words}
            </option>
          ))}
        </select>
      </Field>
      <Field label={label}>
        <input value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value, matching)} />
      </Field>
    </>
  )
}

/** One step: its event, URL, element (text, link, tag) and event-property filters. */
function StepFields({
  step,
  n,
  eventNames,
  onChange,
  onRemove,
}: {
  step: StepDraft
  n: number
  eventNames: string
  onChange: (next: StepDraft) => void
  onRemove?: (() => void) | undefined
}) {
  const set = (patch: Partial<StepDraft>) => onChange({ ...step, ...patch })
  return (
    <fieldset className="stack-wide">
      <legend>
        Step {n}
        {n > 1 && <span className="muted"> (or)</span>}
      </legend>
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <Field label="Event">
          <input list={eventNames} value={step.event} placeholder="Any event" onChange={(e) => set({ event: e.target.value })} />
        </Field>
        <MatchedField
          label="URL"
          value={step.url}
          matching={step.urlMatching}
          placeholder="/pricing"
          onChange={(url, urlMatching) => set({ url, urlMatching })}
        />
      </div>
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <MatchedField
          label="Element text"
          value={step.text}
          matching={step.textMatching}
          placeholder="Sign up"
          onChange={(text, textMatching) => set({ text, textMatching })}
        />
        <MatchedField
          label="Link target"
          value={step.href}
          matching={step.hrefMatching}
          placeholder="/signup"
          onChange={(href, hrefMatching) => set({ href, hrefMatching })}
        />
        <Field label="Element tag">
          <input value={step.tagName} placeholder="button" onChange={(e) => set({ tagName: e.target.value })} />
        </Field>
      </div>
      {step.selector && (
        <p className="muted" style={{ margin: 0 }}>
          Its CSS selector <code>{step.selector}</code> is kept as it is; queries refuse an action with one.
        </p>
      )}
      {step.properties.map((p, i) => (
        <div className="toolbar" style={{ marginBottom: 0 }} key={i} role="group" aria-label={`Step ${n} property filter ${i + 1}`}>
          <PersonConditionFields
            condition={p}
            propertyLabel="Event property"
            onChange={(next) => set({ properties: step.properties.map((q, j) => (j === i ? next : q)) })}
          />
          <button type="button" onClick={() => set({ properties: step.properties.filter((_, j) => j !== i) })}>
            Remove filter
          </button>
        </div>
      ))}
      {step.keptProperties.length > 0 && (
        <p className="muted" style={{ margin: 0 }}>
          {step.keptProperties.length} more {step.keptProperties.length === 1 ? 'filter' : 'filters'} this form does not draw, kept as{' '}
          {step.keptProperties.length === 1 ? 'it is' : 'they are'}.
        </p>
      )}
      <div className="row">
        <button type="button" onClick={() => set({ properties: [...step.properties, { key: '', operator: 'exact', value: '' }] })}>
          Add property filter to step {n}
        </button>
        {onRemove && (
          <button type="button" onClick={onRemove}>
            Remove step {n}
          </button>
        )}
      </div>
    </fieldset>
  )
}

/**
 * An action's name, description and steps (an event matches the action when it matches any
 * step), saved as new or over `action`; a refusal stays in the form in the service's words.
 */
export function ActionForm({
  action,
  eventNames,
  save,
  onSaved,
}: {
  action?: Pick<Action, 'name' | 'description' | 'steps'>
  eventNames: string[]
  save: (changes: ActionChanges) => Promise<Action>
  onSaved: (action: Action) => void
}): React.JSX.Element {
  const [name, setName] = useState(action?.name ?? '')
  const [description, setDescription] = useState(action?.description ?? '')
  const [steps, setSteps] = useState<StepDraft[]>(() => (action?.steps.length ? action.steps.map(stepDraftOf) : [newStep()]))
  const saving = useMutation({
    mutationFn: () => save({ name: name.trim(), description, steps: steps.map(stepWriteOf) }),
    onSuccess: (saved) => onSaved(saved),
  })
  return (
    <form
      className="builder"
      aria-label={action ? 'Action' : 'New action'}
      onSubmit={(e) => {
        e.preventDefault()
        saving.mutate()
      }}
    >
      <datalist id="action-event-names">
        {eventNames.map((event) => (
          <option key={event} value={event} />
        ))}
      </datalist>
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <label className="field">
          <span>Name</span>
          <input required maxLength={400} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Description</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <p className="muted" style={{ margin: 0 }}>
        An event is this action when it matches any of the steps; within a step, every field filled in must match.
      </p>
      {steps.map((step, i) => (
        <StepFields
          key={i}
          step={step}
          n={i + 1}
          eventNames="action-event-names"
          onChange={(next) => setSteps(steps.map((s, j) => (j === i ? next : s)))}
          onRemove={steps.length > 1 ? () => setSteps(steps.filter((_, j) => j !== i)) : undefined}
        />
      ))}
      <div className="row">
        <button type="button" onClick={() => setSteps([...steps, newStep()])}>
          Add step
        </button>
        <button type="submit" className="primary" disabled={saving.isPending}>
          {saving.isPending ? 'Saving…' : action ? 'Save action' : 'Create action'}
        </button>
        {saving.isSuccess && action && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
      </div>
      {saving.isError && <Refusal error={saving.error} />}
    </form>
  )
}
