// A modal dialog on the browser's own <dialog>: focus moves into it and back, Escape closes
// it, and the page behind is inert. ConfirmDialog asks before something that cannot be undone.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { Button } from "./button.tsx";

interface DialogProps {
  open: boolean;
  title: string;
  onClose(): void;
  children: ComponentChildren;
  /** The buttons at the foot, e.g. Cancel and the action. */
  footer?: ComponentChildren;
  wide?: boolean;
}

export function Dialog({ open, title, onClose, children, footer, wide }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class={wide ? "dialog dialog-wide" : "dialog"} aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      {open && (
        <>
          <h2 id={titleId} class="dialog-title">{title}</h2>
          <div class="dialog-body">{children}</div>
          {footer && <div class="dialog-footer">{footer}</div>}
        </>
      )}
    </dialog>
  );
}

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  danger?: boolean;
  onConfirm(): void;
  onClose(): void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, busy, danger, onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={busy}>Cancel</Button>
          <Button variant={danger ? "danger" : "primary"} busy={busy} onClick={onConfirm}>{confirmLabel}</Button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
