// Buttons and links that look like buttons. `busy` keeps the label (so the width holds) and
// tells assistive technology the action is under way.
import type { AnchorHTMLAttributes, ButtonHTMLAttributes, ComponentChildren } from "preact";

type Variant = "primary" | "secondary" | "ghost" | "danger";

type ButtonProps = ButtonHTMLAttributes & {
  variant?: Variant;
  small?: boolean;
  busy?: boolean;
  block?: boolean;
  children: ComponentChildren;
};

const classes = (variant: Variant, small?: boolean, block?: boolean) =>
  ["button", `button-${variant}`, small ? "button-small" : "", block ? "button-block" : ""].filter(Boolean).join(" ");

export function Button({ variant = "secondary", small, busy, block, children, disabled, type = "button", ...rest }: ButtonProps) {
  return (
    <button {...rest} type={type} class={classes(variant, small, block)} disabled={disabled || busy} aria-busy={busy ? "true" : undefined}>
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

type LinkButtonProps = AnchorHTMLAttributes & {
  href: string;
  variant?: Variant;
  small?: boolean;
  block?: boolean;
  children: ComponentChildren;
};

export function LinkButton({ variant = "secondary", small, block, children, ...rest }: LinkButtonProps) {
  return (
    <a {...rest} class={classes(variant, small, block)}>
      {children}
    </a>
  );
}
