// The emailed invitation link lands here (/invitations/accept?token=…). Accepting needs the
// account the invitation was sent to: a signed-out person logs in or signs up first and comes
// back; a signed-in one sees which account will join, then accepts.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { acceptInvitation } from "../../api/console-api.ts";
import { describeError } from "../../api/errors.ts";
import { isNotFound } from "../../api/http.ts";
import type { MeResponse, OrgDto } from "../../api/types.ts";
import { useFormAction } from "../../hooks/use-form-action.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { SessionKnown } from "../../layouts/guards.tsx";
import { currentLocation, paths } from "../../paths.ts";
import { loadSession, signOut } from "../../state/session.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { PageTitle } from "../../ui/page-title.tsx";

function SignInFirst() {
  const here = currentLocation();
  return (
    <div class="form">
      <p class="form-text">Log in, or create an account, with the email address the invitation was sent to. You will come back here to accept it.</p>
      <LinkButton href={paths.login(here)} variant="primary" block>
        Log in to accept
      </LinkButton>
      <LinkButton href={paths.signup(here)} block>
        Create an account
      </LinkButton>
    </div>
  );
}

function Accept({ token, me }: { token: string; me: MeResponse }) {
  const [joined, setJoined] = useState<OrgDto | null>(null);
  const form = useFormAction(async () => {
    const org = await acceptInvitation(token);
    await loadSession();
    setJoined(org);
  });
  if (joined) {
    return (
      <div class="form">
        <Alert tone="success">
          You joined <strong>{joined.name}</strong>.
        </Alert>
        <LinkButton href={paths.orgHome(joined.id)} variant="primary" block>
          Open {joined.name}
        </LinkButton>
      </div>
    );
  }
  return (
    <form class="form" onSubmit={form.onSubmit}>
      {form.error !== null && (
        <Alert tone="error">
          {isNotFound(form.error)
            ? `This invitation cannot be accepted by ${me.user.email}: it was sent to another address, has expired, or was already used.`
            : describeError(form.error)}
        </Alert>
      )}
      <p class="form-text">
        You are signed in as <strong>{me.user.email}</strong>. Accepting adds this account to the organisation that invited it.
      </p>
      <Button type="submit" variant="primary" busy={form.busy} block>
        Accept invitation
      </Button>
      <Button variant="ghost" block onClick={() => void signOut()}>
        Use another account
      </Button>
    </form>
  );
}

export default function AcceptInvitationPage() {
  const { query } = useLocation();
  const token = query.token;
  return (
    <AuthLayout>
      <PageTitle title="Join an organisation" />
      {!token ? (
        <Alert tone="error">This page opens from the link in an invitation email, and this address has no token.</Alert>
      ) : (
        <SessionKnown>{(me) => (me ? <Accept token={token} me={me} /> : <SignInFirst />)}</SessionKnown>
      )}
    </AuthLayout>
  );
}
