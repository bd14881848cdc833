import { useState } from 'react'

/**
 * A page's event-property filter (a property equal to a value), as the page's URL keeps it:
 * applied when the property is given, cleared with Clear. Keyed by the URL's filter, so that a
 * filter changed elsewhere (back, a link) shows in the fields.
 */
export function PropertyFilterForm({
  property: applied,
  value: appliedValue,
  onApply,
}: {
  property: string | undefined
  value: string | undefined
  onApply: (property?: string, value?: string) => void
}) {
  const [property, setProperty] = useState(applied ?? '')
  const [value, setValue] = useState(appliedValue ?? '')
  return (
    <form
      className="row"
      aria-label="Property filter"
      onSubmit={(e) => {
        e.preventDefault()
        onApply(property.trim() || undefined, property.trim() ? value : undefined)
      }}
    >
      <label className="field">
        <span>Event property</span>
        <input value={property} placeholder="$browser" onChange={(e) => setProperty(e.target.value)} />
      </label>
      <label className="field">
        <span>equals</span>
        <input value={value} placeholder="Chrome" onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Filter</button>
      {applied && (
        <button type="button" onClick={() => onApply(undefined, undefined)}>
          Clear filter
        </button>
      )}
    </form>
  )
}
