// A labelled multi-line text field, like field.tsx's TextField: the label names it, a hint
// below is read with it.
import type { ComponentChildren, TextareaHTMLAttributes } from "preact";
import { useId } from "preact/hooks";

type TextAreaFieldProps = TextareaHTMLAttributes & {
  label: string;
  name: string;
  hint?: ComponentChildren;
};

export function TextAreaField({ label, hint, ...textarea }: TextAreaFieldProps) {
  const id = useId();
  return (
    <div class="field">
      <div class="field-label-row">
        <label for={id} class="field-label">{label}</label>
      </div>
      <textarea {...textarea} id={id} class="input textarea" aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint && <p id={`${id}-hint`} class="field-hint">{hint}</p>}
    </div>
  );
}
