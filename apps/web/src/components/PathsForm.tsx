import { PATH_EVENT_TYPES, STEP_LIMIT, type BuilderForm as Form } from '../insightQuery'

/**
 * A paths insight's controls: what its steps are made of, where paths start or end, and how many
 * steps they are followed for. Ticks apply at once; typed text applies on leaving the field.
 */
export function PathsForm({
  draft,
  choose,
  type,
  apply,
}: {
  draft: Form
  choose: (patch: Partial<Form>) => void
  type: (patch: Partial<Form>) => void
  apply: () => void
}) {
  return (
    <>
      <fieldset>
        <legend>Steps made of</legend>
        <div className="row">
          {PATH_EVENT_TYPES.map(([eventType, label]) => (
            <label className="row" key={eventType}>
              <input
                type="checkbox"
                checked={draft.pathEventTypes.includes(eventType)}
                onChange={(e) =>
                  choose({
                    // In PostHog's order whatever the order of the ticks, so that the same choice is the same query.
                    pathEventTypes: PATH_EVENT_TYPES.map(([t]) => t).filter((t) =>
                      t === eventType ? e.target.checked : draft.pathEventTypes.includes(t),
                    ),
                  })
                }
              />
              {label}
            </label>
          ))}
        </div>
        {draft.pathEventTypes.length === 0 && <p className="muted">None ticked: every event is a step.</p>}
      </fieldset>
      <div className="toolbar">
        <label className="field">
          <span>Start point (URL, screen or event)</span>
          <input
            list="builder-event-names"
            value={draft.startPoint}
            placeholder="Any"
            onChange={(e) => type({ startPoint: e.target.value })}
            onBlur={apply}
          />
        </label>
        <label className="field">
          <span>End point (URL, screen or event)</span>
          <input
            list="builder-event-names"
            value={draft.endPoint}
            placeholder="Any"
            onChange={(e) => type({ endPoint: e.target.value })}
            onBlur={apply}
          />
        </label>
        <label className="field">
          <span>Steps</span>
          <input
            type="number"
            min={STEP_LIMIT.min}
            max={STEP_LIMIT.max}
            value={draft.stepLimit || ''}
            onChange={(e) => type({ stepLimit: Math.max(0, Math.min(STEP_LIMIT.max, Math.trunc(Number(e.target.value) || 0))) })}
            onBlur={apply}
          />
        </label>
      </div>
    </>
  )
}
