import type { EventDefinition } from '@burrow/contracts'
import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { Refusal } from './States'

/** What the Data management page shows of an event definition and lets a person change. */
export type Definition = Pick<EventDefinition, 'id' | 'name' | 'description' | 'tags' | 'verified'>

/** What a save sends: the description, the tags and whether the event is verified. */
export interface DefinitionChanges {
  description: string
  tags: string[]
  verified: boolean
}

/** Tags as a person types them, separated by commas: trimmed, the empty ones and the repeats left out. */
export function tagsOf(text: string): string[] {
  return [...new Set(text.split(',').map((tag) => tag.trim()))].filter((tag) => tag !== '')
}

/**
 * The form of an event definition's dialog: its description, its tags (separated by commas) and
 * whether it is verified, saved together; a refusal stays in the form in the service's words.
 */
export function EventDefinitionForm({
  definition,
  save,
  onSaved,
}: {
  definition: Definition
  save: (changes: DefinitionChanges) => Promise<unknown>
  onSaved: () => void
}): React.JSX.Element {
  const [description, setDescription] = useState(definition.description)
  const [tags, setTags] = useState(definition.tags.join(', '))
  const [verified, setVerified] = useState(definition.verified)
  const saving = useMutation({
    mutationFn: () => save({ description, tags: tagsOf(tags), verified }),
    onSuccess: onSaved,
  })
  return (
    <form
      className="stack"
      aria-label={`Event ${definition.name}`}
      onSubmit={(e) => {
        e.preventDefault()
        saving.mutate()
      }}
    >
      <label className="field">
        <span>Description</span>
        <textarea rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label className="field">
        <span>Tags (separated by commas)</span>
        <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="checkout, marketing" />
      </label>
      <label className="row">
        <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.target.checked)} />
        Verified: this event is what its name and description say
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={saving.isPending}>
          {saving.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
      {saving.isError && <Refusal error={saving.error} />}
    </form>
  )
}
