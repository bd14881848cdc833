import type { ReactNode } from 'react'

/** An option: a value shown as it is, or a value and its label. */
type Option<V> = V | readonly [V, string]

/**
 * A labelled select of `options`. A value that is none of them (a saved query may hold one the
 * console does not offer) is kept as an option of its own when `otherLabel` names it, so that
 * showing the form does not change the query.
 */
export function SelectField<V extends string | number>({
  label,
  value,
  options,
  onChange,
  otherLabel,
}: {
  label: ReactNode
  value: V
  options: readonly Option<V>[]
  onChange: (value: V) => void
  otherLabel?: (value: V) => string
}) {
  const pairs = options.map((o): readonly [V, string] => (typeof o === 'object' ? o : [o, String(o)]))
  const all = otherLabel && !pairs.some(([v]) => v === value) ? [[value, otherLabel(value)] as const, ...pairs] : pairs
  return (
    <label className="field">
      <span>{label}</span>
      <select value={String(value)} onChange={(e) => onChange(all.find(([v]) => String(v) === e.target.value)?.[0] ?? value)}>
        {all.map(([v, text]) => (
          <option key={String(v)} value={String(v)}>
            {text}
          </option>
        ))}
      </select>
    </label>
  )
}
