// The person's own pages (account, sessions, tokens, connected apps) in the focused layout, under one heading
// with a bar of links between them.
import type { ComponentChildren } from "preact";
import type { MeResponse } from "../../api/types.ts";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { PageTitle } from "../../ui/page-title.tsx";

const accountPages = [
  { href: paths.account, label: "Account" },
  { href: paths.accountSessions, label: "Sessions" },
  { href: paths.accountTokens, label: "Tokens" },
  { href: paths.accountConnections, label: "Connected apps" },
] as const;

export type AccountPage = (typeof accountPages)[number]["href"];

interface AccountLayoutProps {
  current: AccountPage;
  title: string;
  lede: ComponentChildren;
  children: (me: MeResponse) => ComponentChildren;
}

export function AccountLayout({ current, title, lede, children }: AccountLayoutProps) {
  return (
    <RequireSignedIn>
      {(me) => (
        <FocusLayout me={me}>
          <div class="page settings-page settings-wide">
            <nav class="account-tabs" aria-label="Your account">
              {accountPages.map(({ href, label }) => (
                <a key={href} href={href} class="account-tab" aria-current={href === current ? "page" : undefined}>{label}</a>
              ))}
            </nav>
            <PageTitle title={title}>{lede}</PageTitle>
            {children(me)}
          </div>
        </FocusLayout>
      )}
    </RequireSignedIn>
  );
}
