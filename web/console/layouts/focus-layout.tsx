// Signed-in pages outside any project (creating one): the page alone, centred, under a top bar.
import type { ComponentChildren } from "preact";
import type { MeResponse } from "../api/types.ts";
import { paths } from "../paths.ts";
import { Brand } from "../ui/brand.tsx";
import { SkipLink } from "./app-layout.tsx";
import { EmailBanner } from "./email-banner.tsx";
import { UserPanel } from "./user-panel.tsx";

export function FocusLayout({ me, children }: { me: MeResponse; children: ComponentChildren }) {
  return (
    <div class="focus-layout">
      <SkipLink />
      <header class="top-bar">
        <a href={paths.home} aria-label="svc-analytics home">
          <Brand />
        </a>
        <UserPanel user={me.user} />
      </header>
      <EmailBanner user={me.user} />
      <main id="main" class="focus-content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
