import { editFlag, payloadKeys, type FlagCondition, type FlagForm } from '../flagFilters'
import { Field, KeptCondition, PersonConditionFields } from './ConditionFields'

/**
 * A flag's release conditions, variants and payloads, as PostHog's flag form has them: groups
 * of person-property conditions each with a rollout percentage (and, with variants, an optional
 * variant override); variants with keys and percentages; a JSON payload per variant, or one for a
 * flag without variants. Controlled: each change is a new `FlagForm` handed to `onChange`.
 */
export function FlagFiltersEditor({ value, onChange }: { value: FlagForm; onChange: (next: FlagForm) => void }): React.JSX.Element {
  return (
    <>
      <fieldset className="stack-wide">
        <legend>Release conditions</legend>
        {value.groups.length === 0 && <p className="muted">No condition set: the flag is off for everyone. Add one.</p>}
        {value.groups.map((group, g) => (
          <div key={g} className="stack-wide">
            {g > 0 && (
              <p className="muted" style={{ margin: 0 }}>
                or
              </p>
            )}
            <fieldset className="stack-wide">
              <legend>Condition set {g + 1}</legend>
              {group.conditions.length === 0 && <p className="muted">Every user matches (no condition).</p>}
              {group.conditions.map((condition, c) => (
                <div key={c} role="group" aria-label={`Condition ${c + 1}`} className="toolbar" style={{ marginBottom: 0 }}>
                  <ConditionFields condition={condition} onChange={(next) => onChange(editFlag.setCondition(value, g, c, next))} />
                  <button type="button" onClick={() => onChange(editFlag.removeCondition(value, g, c))}>
                    Remove condition<span className="visually-hidden"> {c + 1}</span>
                  </button>
                </div>
              ))}
              <div className="row">
                <Field label="Roll out to (% of matching users)">
                  <input
                    required
                    type="number"
                    min={0}
                    max={100}
                    step="any"
                    value={group.rollout}
                    onChange={(e) => onChange(editFlag.setGroup(value, g, { rollout: e.target.value }))}
                  />
                </Field>
                {value.variants.length > 0 && (
                  <Field label="Variant">
                    <select value={group.variant} onChange={(e) => onChange(editFlag.setGroup(value, g, { variant: e.target.value }))}>
                      <option value="">split by the variants' percentages</option>
                      {value.variants.map((v, i) => (
                        <option key={i} value={v.key}>
                          always {v.key || `variant ${i + 1}`}
                        </option>
                      ))}
                    </select>
                  </Field>
                )}
              </div>
              <div className="row">
                <button type="button" onClick={() => onChange(editFlag.addCondition(value, g))}>
                  Add condition<span className="visually-hidden"> to set {g + 1}</span>
                </button>
                <button type="button" className="danger" onClick={() => onChange(editFlag.removeGroup(value, g))}>
                  Remove condition set {g + 1}
                </button>
              </div>
            </fieldset>
          </div>
        ))}
        <div className="row">
          <button type="button" onClick={() => onChange(editFlag.addGroup(value))}>
            Add condition set
          </button>
        </div>
      </fieldset>
      <fieldset className="stack-wide">
        <legend>Variants</legend>
        {value.variants.length === 0 && (
          <p className="muted">A boolean flag: matching users get true. Add variants to split them between several values.</p>
        )}
        {value.variants.map((variant, v) => (
          <div key={v} role="group" aria-label={`Variant ${v + 1}`} className="toolbar" style={{ marginBottom: 0 }}>
            <Field label="Variant key">
              <input
                required
                pattern="[a-zA-Z0-9_\-]+"
                value={variant.key}
                onChange={(e) => onChange(editFlag.setVariant(value, v, { key: e.target.value }))}
              />
            </Field>
            <Field label="Variant name">
              <input value={variant.name} onChange={(e) => onChange(editFlag.setVariant(value, v, { name: e.target.value }))} />
            </Field>
            <Field label="Rollout (%)">
              <input
                required
                type="number"
                min={0}
                max={100}
                step="any"
                value={variant.rollout}
                onChange={(e) => onChange(editFlag.setVariant(value, v, { rollout: e.target.value }))}
              />
            </Field>
            <button type="button" onClick={() => onChange(editFlag.removeVariant(value, v))}>
              Remove variant<span className="visually-hidden"> {v + 1}</span>
            </button>
          </div>
        ))}
        <div className="row">
          <button type="button" onClick={() => onChange(editFlag.addVariant(value))}>
            Add variant
          </button>
        </div>
      </fieldset>
      <fieldset className="stack-wide">
        <legend>Payloads</legend>
        <p className="muted" style={{ margin: 0 }}>
          JSON sent with the flag&apos;s value to the users who get it (optional).
        </p>
        {payloadKeys(value).map((key, i) => (
          <Field key={i} label={key === 'true' ? 'Payload when true' : `Payload of ${key || `variant ${i + 1}`}`}>
            <textarea
              rows={2}
              spellCheck={false}
              placeholder='{"color": "blue"}'
              value={value.payloads[key] ?? ''}
              onChange={(e) => onChange(editFlag.setPayload(value, key, e.target.value))}
            />
          </Field>
        ))}
      </fieldset>
    </>
  )
}

function ConditionFields({ condition, onChange }: { condition: FlagCondition; onChange: (next: FlagCondition) => void }) {
  if (condition.kind === 'other') return <KeptCondition raw={condition.raw} editor="form" />
  return <PersonConditionFields condition={condition} onChange={onChange} propertyLabel="Person property" />
}
