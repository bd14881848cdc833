import { useEffect, useRef, useState } from 'react'
import { Refusal } from './States'

/**
 * A modal dialog on the platform's own <dialog>: showModal() makes the rest of the page inert,
 * keeps focus inside and closes on Escape, with no script of ours and no injected styles (which
 * the page's Content-Security-Policy would refuse).
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean
  title: string
  onClose: () => void
  children: React.ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={onClose}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2 id="dialog-title" style={{ margin: 0 }}>
          {title}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {open && children}
    </dialog>
  )
}

/** What DeleteButton needs of the deletion: a react-query mutation has it. */
interface Deletion {
  mutate: () => void
  isPending: boolean
  isError: boolean
  error: unknown
}

/**
 * "Delete <noun>", which asks first in a dialog: `children` say what the deletion does (and may
 * hold its options), the dialog's button runs `deletion`, and its refusal shows in the dialog.
 */
export function DeleteButton({ noun, deletion, children }: { noun: string; deletion: Deletion; children: React.ReactNode }) {
  const [confirming, setConfirming] = useState(false)
  return (
    <>
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        Delete {noun}
      </button>
      <Dialog open={confirming} title={`Delete this ${noun}?`} onClose={() => setConfirming(false)}>
        {children}
        <div className="row">
          <button type="button" className="danger" disabled={deletion.isPending} onClick={() => deletion.mutate()}>
            Delete {noun}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
        {deletion.isError && <Refusal error={deletion.error} />}
      </Dialog>
    </>
  )
}
