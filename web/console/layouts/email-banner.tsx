// Until the address is confirmed, a line at the top says so and offers the mail again.
import { useState } from "preact/hooks";
import { resendVerification } from "../api/console-api.ts";
import { describeError } from "../api/errors.ts";
import type { UserDto } from "../api/types.ts";
import { Button } from "../ui/button.tsx";
import { MailIcon } from "../ui/icons.tsx";

type Sending = { status: "idle" } | { status: "sending" } | { status: "sent" } | { status: "failed"; error: unknown };

export function EmailBanner({ user }: { user: UserDto }) {
  const [sending, setSending] = useState<Sending>({ status: "idle" });
  if (user.email_verified) return null;
  const send = async () => {
    setSending({ status: "sending" });
    try {
      await resendVerification();
      setSending({ status: "sent" });
    } catch (error) {
      setSending({ status: "failed", error });
    }
  };
  return (
    <div class="email-banner" role="status">
      <MailIcon />
      <span>
        Confirm your email address: we sent a link to <strong>{user.email}</strong>.
      </span>
      {sending.status === "sent" ? (
        <span class="email-banner-note">Sent. Check your inbox.</span>
      ) : (
        <Button small variant="ghost" busy={sending.status === "sending"} onClick={send}>
          Send it again
        </Button>
      )}
      {sending.status === "failed" && <span class="email-banner-error">{describeError(sending.error)}</span>}
    </div>
  );
}
