// Pages for signed-in people wait for the session and send everyone else to log in (coming
// back afterwards); pages for signing in send people who already are onward.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { useLocation } from "preact-iso";
import type { MeResponse } from "../api/types.ts";
import { currentLocation, paths, safeNext } from "../paths.ts";
import { loadSession, session } from "../state/session.ts";
import { ErrorState, LoadingState } from "../ui/states.tsx";

export function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to]);
  return null;
}

function SessionPending() {
  const state = session.value;
  if (state.status === "failed") {
    return (
      <main class="centered-page">
        <ErrorState title="The console could not start" error={state.error} onRetry={() => void loadSession()} />
      </main>
    );
  }
  return (
    <main class="centered-page">
      <LoadingState label="Opening the console…" />
    </main>
  );
}

export function RequireSignedIn({ children }: { children: (me: MeResponse) => ComponentChildren }) {
  const state = session.value;
  if (state.status === "signed-out") return <Redirect to={paths.login(currentLocation())} />;
  if (state.status !== "signed-in") return <SessionPending />;
  return <>{children(state.me)}</>;
}

/** For log in and sign up: a signed-in person goes where `next` says, or home. */
export function SignedOutOnly({ children }: { children: ComponentChildren }) {
  const state = session.value;
  const { query } = useLocation();
  if (state.status === "signed-in") return <Redirect to={safeNext(query.next)} />;
  if (state.status !== "signed-out") return <SessionPending />;
  return <>{children}</>;
}

/** For pages that work either way (verify email, accept invitation): waits until it is known which. */
export function SessionKnown({ children }: { children: (me: MeResponse | null) => ComponentChildren }) {
  const state = session.value;
  if (state.status === "signed-in") return <>{children(state.me)}</>;
  if (state.status === "signed-out") return <>{children(null)}</>;
  return <SessionPending />;
}
