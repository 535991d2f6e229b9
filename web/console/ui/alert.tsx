// A message inside a page or form. Errors are announced at once (role=alert), the rest politely.
import type { ComponentChildren } from "preact";
import { AlertIcon, CheckIcon, MailIcon } from "./icons.tsx";

type Tone = "error" | "success" | "info";

const icons = { error: AlertIcon, success: CheckIcon, info: MailIcon };

export function Alert({ tone, children }: { tone: Tone; children: ComponentChildren }) {
  const Icon = icons[tone];
  return (
    <div class={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      <Icon />
      <div class="alert-body">{children}</div>
    </div>
  );
}
