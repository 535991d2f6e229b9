// The emailed confirmation link lands here (/verify-email?token=…): the address is confirmed
// as the page opens, signed in or not, and the page says what to do next.
import { useEffect } from "preact/hooks";
import { useLocation } from "preact-iso";
import { verifyEmail } from "../../api/console-api.ts";
import { describeError } from "../../api/errors.ts";
import { isNotFound } from "../../api/http.ts";
import type { MeResponse } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { EmailBanner } from "../../layouts/email-banner.tsx";
import { SessionKnown } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { loadSession } from "../../state/session.ts";
import { Alert } from "../../ui/alert.tsx";
import { LinkButton } from "../../ui/button.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { LoadingState } from "../../ui/states.tsx";

const noToken = () => Promise.reject(new Error("this page opens from the link in a confirmation email, and this address has no token"));

function Verification({ token, me }: { token: string | undefined; me: MeResponse | null }) {
  const [verification] = useResource(() => (token ? verifyEmail(token) : noToken()), [token]);
  useEffect(() => {
    // The banner asking to confirm the address goes away.
    if (verification.status === "ready" && me) void loadSession();
  }, [verification.status]);
  const onward = me ? <LinkButton href={paths.home} variant="primary" block>Continue to the console</LinkButton> : <LinkButton href={paths.login()} variant="primary" block>Log in</LinkButton>;

  if (verification.status === "loading") return <LoadingState label="Confirming your email address…" />;
  if (verification.status === "ready" || (me?.user.email_verified && isNotFound(verification.error))) {
    return (
      <div class="form">
        <Alert tone="success">{verification.status === "ready" ? "Your email address is confirmed." : "Your email address is already confirmed."}</Alert>
        {onward}
      </div>
    );
  }
  return (
    <div class="form">
      <Alert tone="error">
        {isNotFound(verification.error) ? "This link has expired or was already used." : describeError(verification.error)}
      </Alert>
      {me && !me.user.email_verified ? <EmailBanner user={me.user} /> : onward}
    </div>
  );
}

export default function VerifyEmailPage() {
  const { query } = useLocation();
  return (
    <AuthLayout>
      <PageTitle title="Confirm your email" />
      <SessionKnown>{(me) => <Verification token={query.token} me={me} />}</SessionKnown>
    </AuthLayout>
  );
}
