import { useState } from 'react'

/**
 * A search box whose text is applied on submit, not on each key, so that the URL (and the
 * query it starts) changes once per search; an empty search clears it.
 */
export function SearchForm({
  label,
  value,
  onSearch,
}: {
  label: string
  value: string | undefined
  onSearch: (search: string | undefined) => void
}) {
  const [text, setText] = useState(value ?? '')
  return (
    <form
      className="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault()
        onSearch(text.trim() || undefined)
      }}
    >
      <label className="field">
        <span>{label}</span>
        <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  )
}
