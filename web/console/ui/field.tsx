// Labelled form controls: the label names the control for screen readers, a hint below it is
// read with it (aria-describedby).
import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from "preact";
import { useId } from "preact/hooks";

interface FieldFrameProps {
  id: string;
  label: string;
  hint?: ComponentChildren;
  /** Beside the label, e.g. a "Forgot password?" link. */
  aside?: ComponentChildren;
  children: ComponentChildren;
}

function FieldFrame({ id, label, hint, aside, children }: FieldFrameProps) {
  return (
    <div class="field">
      <div class="field-label-row">
        <label for={id} class="field-label">{label}</label>
        {aside}
      </div>
      {children}
      {hint && <p id={`${id}-hint`} class="field-hint">{hint}</p>}
    </div>
  );
}

type TextFieldProps = InputHTMLAttributes & {
  label: string;
  name: string;
  hint?: ComponentChildren;
  aside?: ComponentChildren;
};

export function TextField({ label, hint, aside, ...input }: TextFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint} aside={aside}>
      <input {...input} id={id} class="input" aria-describedby={hint ? `${id}-hint` : undefined} />
    </FieldFrame>
  );
}

type SelectFieldProps = SelectHTMLAttributes & {
  label: string;
  name: string;
  hint?: ComponentChildren;
  children: ComponentChildren;
};

export function SelectField({ label, hint, children, ...select }: SelectFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint}>
      <select {...select} id={id} class="input select" aria-describedby={hint ? `${id}-hint` : undefined}>
        {children}
      </select>
    </FieldFrame>
  );
}

type TextAreaFieldProps = TextareaHTMLAttributes & {
  label: string;
  name: string;
  hint?: ComponentChildren;
  /** Typed lists (origins, ids): a monospace face keeps characters apart. */
  monospace?: boolean;
};

export function TextAreaField({ label, hint, monospace, ...textarea }: TextAreaFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint}>
      <textarea {...textarea} id={id} class={monospace ? "input textarea textarea-mono" : "input textarea"} aria-describedby={hint ? `${id}-hint` : undefined} />
    </FieldFrame>
  );
}
