import { cloneElement, useId, type ReactElement } from 'react'
import { isNumeric, PERSON_OPERATORS, takesValue, type PersonOperator } from '../personOperators'

/**
 * A control under its visible label, tied by `id` rather than wrapped, so that its accessible
 * name is the label alone (a wrapped select would also be named by its chosen option).
 */
export function Field({ label, children }: { label: string; children: ReactElement<{ id?: string }> }) {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id} className="muted">
        {label}
      </label>
      {cloneElement(children, { id })}
    </div>
  )
}

/** A person-property condition as the cohort and flag editors draw it. */
export interface PersonCondition {
  key: string
  operator: PersonOperator
  value: string
}

/** A person-property condition's fields: the property, the operator, and the value when the operator takes one. */
export function PersonConditionFields<C extends PersonCondition>({
  condition,
  onChange,
  propertyLabel,
}: {
  condition: C
  onChange: (next: C) => void
  propertyLabel: string
}) {
  return (
    <>
      <Field label={propertyLabel}>
        <input required value={condition.key} placeholder="email" onChange={(e) => onChange({ ...condition, key: e.target.value })} />
      </Field>
      <Field label="Operator">
        <select value={condition.operator} onChange={(e) => onChange({ ...condition, operator: e.target.value as PersonOperator })}>
          {PERSON_OPERATORS.map(([op, label]) => (
            <option key={op} value={op}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      {takesValue(condition.operator) && (
        <Field label="Value">
          <input
            required
            type={isNumeric(condition.operator) ? 'number' : 'text'}
            step="any"
            value={condition.value}
            onChange={(e) => onChange({ ...condition, value: e.target.value })}
          />
        </Field>
      )}
    </>
  )
}

/** A condition an editor does not draw, shown as the JSON it keeps unchanged. */
export function KeptCondition({ raw, editor }: { raw: unknown; editor: string }) {
  return (
    <p style={{ margin: 0 }}>
      <span className="muted">A condition this {editor} does not draw, kept as it is: </span>
      <code>{JSON.stringify(raw)}</code>
    </p>
  )
}
