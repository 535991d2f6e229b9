// Pages about an account (log in, sign up, password, email, invitation): one card, centred.
import type { ComponentChildren } from "preact";
import { paths } from "../paths.ts";
import { Brand } from "../ui/brand.tsx";
import { ThemeSwitch } from "../ui/theme-switch.tsx";

export function AuthLayout({ children, footer }: { children: ComponentChildren; footer?: ComponentChildren }) {
  return (
    <div class="auth-layout">
      <a href={paths.home} class="auth-brand" aria-label="svc-analytics home">
        <Brand />
      </a>
      <main id="main" class="auth-card">
        {children}
      </main>
      {footer && <p class="auth-footer">{footer}</p>}
      <div class="auth-theme">
        <ThemeSwitch />
      </div>
    </div>
  );
}
