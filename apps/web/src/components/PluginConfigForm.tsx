import type { PluginConfigField } from '@burrow/contracts'
import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { Refusal } from './States'

/**
 * One field of a plugin's config schema, as PostHog's plugin.json declares it; its type is kept
 * open, since a plugin may declare kinds this form does not draw (an attachment).
 */
export type ConfigField = Omit<PluginConfigField, 'type'> & { type: string }

/** What the service shows instead of a secret field's value (PostHog's own text). */
const SECRET_MASK = '**************** POSTHOG SECRET FIELD ****************'

const DRAWN = new Set(['string', 'choice', 'json'])

/** A stored value as the form's text: JSON fields as their JSON, the rest as text. */
function textOf(field: ConfigField, value: unknown): string {
  if (value === undefined || value === null) return field.default ?? ''
  if (typeof value === 'string') return value
  // A number or a boolean reads the same as its JSON; an object as indented JSON.
  return JSON.stringify(value, null, 2)
}

/**
 * The config to send: every field the form draws, except a secret left as it was stored (the
 * service keeps a secret that is not sent, and never shows it).
 */
export function configToSend(
  schema: readonly ConfigField[],
  values: Record<string, string>,
  stored: Record<string, unknown>,
): Record<string, string> {
  const config: Record<string, string> = {}
  for (const field of schema) {
    if (!DRAWN.has(field.type)) continue
    const value = values[field.key] ?? ''
    if (field.secret && stored[field.key] === SECRET_MASK && value === '') continue
    config[field.key] = value
  }
  return config
}

/**
 * A plugin's settings, drawn from its own config schema: text for a string, a list for a choice,
 * a text area for JSON; a secret already set shows as set, and is kept unless a new value is
 * typed; a kind the console does not draw (an attachment) is named with a note. A refusal stays
 * in the form in the service's words.
 */
export function PluginConfigForm({
  pluginName,
  schema,
  stored,
  submitLabel,
  save,
  onSaved,
}: {
  pluginName: string
  schema: readonly ConfigField[]
  stored: Record<string, unknown>
  submitLabel: string
  save: (config: Record<string, string>) => Promise<unknown>
  onSaved: () => void
}): React.JSX.Element {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      schema.map((field) => [field.key, field.secret && stored[field.key] === SECRET_MASK ? '' : textOf(field, stored[field.key])]),
    ),
  )
  const saving = useMutation({ mutationFn: () => save(configToSend(schema, values, stored)), onSuccess: onSaved })
  const set = (key: string, value: string) => setValues((v) => ({ ...v, [key]: value }))
  return (
    <form
      className="stack"
      aria-label={`Settings of ${pluginName}`}
      onSubmit={(e) => {
        e.preventDefault()
        saving.mutate()
      }}
    >
      {schema.length === 0 && <p className="muted">This plugin has no settings.</p>}
      {schema.map((field) => {
        const id = `plugin-field-${field.key}`
        const hintId = `${id}-hint`
        const isSet = field.secret === true && stored[field.key] === SECRET_MASK
        // The plugin's own hint, ended as a sentence before the note that a secret is set.
        const hint = [
          field.hint?.replace(/([^.!?])$/, '$1.'),
          isSet ? 'A value is set and kept secret; type a new one to replace it.' : undefined,
        ]
          .filter(Boolean)
          .join(' ')
        const common = {
          id,
          value: values[field.key] ?? '',
          required: field.required === true && !isSet,
          'aria-describedby': hint ? hintId : undefined,
        }
        let control: React.ReactNode
        if (field.type === 'choice')
          control = (
            <select {...common} onChange={(e) => set(field.key, e.target.value)}>
              {!field.required && <option value="">—</option>}
              {(field.choices ?? []).map((choice) => (
                <option key={choice} value={choice}>
                  {choice}
                </option>
              ))}
            </select>
          )
        else if (field.type === 'json')
          control = <textarea {...common} rows={4} spellCheck={false} onChange={(e) => set(field.key, e.target.value)} />
        else if (field.type === 'string')
          control = (
            <input
              {...common}
              type={field.secret ? 'password' : 'text'}
              autoComplete="off"
              onChange={(e) => set(field.key, e.target.value)}
            />
          )
        else
          return (
            <div key={field.key} className="field">
              <span>{field.name}</span>
              <p className="muted">This field ({field.type}) cannot be set in the console; set it through the API.</p>
            </div>
          )
        return (
          <div key={field.key} className="field">
            <label htmlFor={id}>
              {field.name}
              {field.required ? ' (required)' : ''}
            </label>
            {control}
            {hint && (
              <small id={hintId} className="muted">
                {hint}
              </small>
            )}
          </div>
        )
      })}
      <div className="row">
        <button type="submit" className="primary" disabled={saving.isPending}>
          {saving.isPending ? 'Saving…' : submitLabel}
        </button>
      </div>
      {saving.isError && <Refusal error={saving.error} />}
    </form>
  )
}
