import { useEffect, useRef } from 'react'
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

/** A dialog that asks before a deletion: what it does, the button that does it, Cancel, and the service's refusal. */
export function ConfirmDialog({
  open,
  title,
  confirm,
  busy,
  error,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean
  title: string
  /** The confirming button's words ("Delete cohort"). */
  confirm: string
  busy: boolean
  /** The refusal of the last try, if it failed. */
  error: unknown
  onConfirm: () => void
  onClose: () => void
  children: React.ReactNode
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      {children}
      <div className="row">
        <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      {error !== undefined && error !== null && <Refusal error={error} />}
    </Dialog>
  )
}
