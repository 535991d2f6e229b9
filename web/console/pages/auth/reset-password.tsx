// The emailed reset link lands here (/reset-password?token=…): choose a new password. Setting
// it signs every session out, this browser's included, so the next step is logging in.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { confirmPasswordReset } from "../../api/console-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { paths } from "../../paths.ts";
import { signedOut } from "../../state/session.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { passwordHint, passwordLengthMax, passwordLengthMin } from "./account-rules.ts";

function MissingToken() {
  return (
    <div class="form">
      <Alert tone="error">This page opens from the link in a password-reset email, and this address has no token.</Alert>
      <LinkButton href={paths.forgotPassword} variant="primary" block>
        Email me a new link
      </LinkButton>
    </div>
  );
}

export default function ResetPasswordPage() {
  const { query } = useLocation();
  const token = query.token;
  const [done, setDone] = useState(false);
  const form = useFormAction(async (fields) => {
    const password = fieldText(fields, "password");
    if (password !== fieldText(fields, "confirm")) throw new Error("the two passwords differ");
    await confirmPasswordReset(token!, password);
    signedOut();
    setDone(true);
  });
  return (
    <AuthLayout>
      <PageTitle title="Choose a new password" />
      {!token ? (
        <MissingToken />
      ) : done ? (
        <div class="form">
          <Alert tone="success">Your password is changed. Every session was signed out: log in with the new password.</Alert>
          <LinkButton href={paths.login()} variant="primary" block>
            Log in
          </LinkButton>
        </div>
      ) : (
        <form class="form" onSubmit={form.onSubmit}>
          <FormError error={form.error} />
          <TextField label="New password" name="password" type="password" autoComplete="new-password" required minLength={passwordLengthMin} maxLength={passwordLengthMax} hint={passwordHint} />
          <TextField label="Repeat the new password" name="confirm" type="password" autoComplete="new-password" required />
          <Button type="submit" variant="primary" busy={form.busy} block>
            Set password
          </Button>
          <p class="form-note">
            Link expired or already used? <a href={paths.forgotPassword}>Email me a new one</a>.
          </p>
        </form>
      )}
    </AuthLayout>
  );
}
