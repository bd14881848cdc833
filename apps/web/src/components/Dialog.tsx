import { useEffect, useRef } from 'react'

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
