import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { sql } from '@codemirror/lang-sql'
import { bracketMatching, defaultHighlightStyle, HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { EditorSelection, EditorState, Prec, StateEffect, StateField } from '@codemirror/state'
import { Decoration, drawSelection, EditorView, keymap, lineNumbers, type DecorationSet } from '@codemirror/view'
import { useEffect, useRef } from 'react'

/**
 * The SQL page's HogQL editor: CodeMirror 6, in a chunk of its own that only this page loads.
 *
 * The page's Content-Security-Policy allows no inline style (`style-src 'self'`), and
 * CodeMirror writes its styles at run time: into a <style> element, which the policy refuses,
 * unless the editor lives in a shadow root, where it gives them to the root as a constructed
 * style sheet (`adoptedStyleSheets`), which no policy governs. So the editor is drawn in a
 * shadow root of its own element, and the policy stays as strict as it is. The console's
 * colours reach it through their CSS variables, which shadow roots inherit.
 */

/** Colours of the highlighting, by the default style's colour: the console's own, light or dark (styles.css). */
const COLOURS: Record<string, string> = {
  '#708': 'var(--code-keyword)',
  '#a11': 'var(--code-string)',
  '#e40': 'var(--code-string)',
  '#164': 'var(--code-number)',
  '#219': 'var(--code-number)',
  '#940': 'var(--code-comment)',
  '#f00': 'var(--danger)',
}

/** CodeMirror's default highlighting, its colours the console's so that both themes keep their contrast. */
const highlighting = HighlightStyle.define(
  defaultHighlightStyle.specs.map((spec) => ({
    ...spec,
    ...(typeof spec.color === 'string' ? { color: COLOURS[spec.color] ?? 'var(--fg)' } : {}),
  })),
)

const theme = EditorView.theme({
  '&': {
    color: 'var(--fg)',
    backgroundColor: 'var(--bg)',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    fontSize: '14px',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', minHeight: '9em', maxHeight: '24em' },
  '.cm-content': { caretColor: 'var(--fg)', padding: '8px 0' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '.cm-gutters': { backgroundColor: 'var(--bg-raised)', color: 'var(--fg-muted)', borderRight: '1px solid var(--border)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': {
    backgroundColor: 'var(--bg-hover)',
  },
  '.cm-matchingBracket': { outline: '1px solid var(--fg-muted)' },
  '.cm-error-at': { textDecoration: 'underline wavy var(--danger)', textUnderlineOffset: '3px' },
})

/** Marks where the last error points, until the text changes. */
const markError = StateEffect.define<{ from: number; to: number } | null>()
const errorMark = Decoration.mark({ class: 'cm-error-at' })
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = tr.docChanged ? Decoration.none : marks
    for (const effect of tr.effects)
      if (effect.is(markError))
        next = effect.value ? Decoration.set([errorMark.range(effect.value.from, effect.value.to)]) : Decoration.none
    return next
  },
  provide: (field) => EditorView.decorations.from(field),
})

/**
 * Text typed over a selection, and a selection deleted, are made by the editor rather than the
 * browser: Chromium's own editing keeps the colour of the highlighted text it replaces as an
 * inline style (`<span style="color: …">`), which the policy refuses and reports.
 */
const replaceSelectionHere = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (view.state.selection.ranges.every((range) => range.empty) || view.composing) return false
    const typed = event.inputType === 'insertText' || event.inputType === 'insertReplacementText'
    if (!typed && !event.inputType.startsWith('delete')) return false
    const text = typed ? (event.data ?? event.dataTransfer?.getData('text/plain') ?? '') : ''
    event.preventDefault()
    view.dispatch(view.state.replaceSelection(text), { scrollIntoView: true, userEvent: typed ? 'input.type' : 'delete.selection' })
    return true
  },
})

/** The word (or the character) at `offset`, which an error's mark underlines. */
function errorRange(state: EditorState, offset: number): { from: number; to: number } | null {
  const length = state.doc.length
  if (length === 0) return null
  const at = Math.min(offset, length - 1)
  const word = state.wordAt(at)
  return word && word.from <= at ? { from: word.from, to: word.to } : { from: at, to: Math.min(at + 1, length) }
}

export interface SqlEditorProps {
  /** The editor's accessible name. */
  label: string
  value: string
  onChange: (text: string) => void
  /** Ctrl+Enter (Cmd+Enter on a Mac), with the editor's text as it is at that moment. */
  onRun: (text: string) => void
  /** Where the last error points (an offset into `value`), underlined until the text changes. */
  errorAt?: number | undefined
  /** Increased to put the cursor at `errorAt` and focus the editor. */
  focusError?: number
}

/** A HogQL editor with highlighting: Tab leaves it as it leaves any field, Ctrl/Cmd+Enter runs the query. */
export function SqlEditor({ label, value, onChange, onRun, errorAt, focusError = 0 }: SqlEditorProps): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  const callbacks = useRef({ onChange, onRun })
  callbacks.current = { onChange, onRun }

  useEffect(() => {
    const element = host.current
    if (!element) return
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' })
    const editor = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                run: (editor) => {
                  callbacks.current.onRun(editor.state.doc.toString())
                  return true
                },
              },
            ]),
          ),
          lineNumbers(),
          history(),
          drawSelection(),
          bracketMatching(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          sql(),
          syntaxHighlighting(highlighting),
          theme,
          errorField,
          replaceSelectionHere,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.current.onChange(update.state.doc.toString())
          }),
        ],
      }),
    })
    view.current = editor
    return () => {
      editor.destroy()
      view.current = null
    }
    // The editor is made once (for its label); its text follows `value` below.
  }, [label])

  // A text from elsewhere (the URL, after Back) replaces the editor's.
  useEffect(() => {
    const editor = view.current
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } })
  }, [value])

  useEffect(() => {
    const editor = view.current
    if (!editor) return
    editor.dispatch({ effects: markError.of(errorAt === undefined ? null : errorRange(editor.state, errorAt)) })
  }, [errorAt, value])

  useEffect(() => {
    const editor = view.current
    if (!editor || focusError === 0 || errorAt === undefined) return
    editor.dispatch({ selection: EditorSelection.cursor(Math.min(errorAt, editor.state.doc.length)), scrollIntoView: true })
    editor.focus()
    // Only a new request moves the cursor, not a new error.
  }, [focusError])

  return <div ref={host} className="sql-editor" />
}
