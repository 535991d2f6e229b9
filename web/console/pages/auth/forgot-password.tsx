// Ask for a reset link. The answer is the same whether or not the address has an account, so
// the page says "if".
import { useState } from "preact/hooks";
import { requestPasswordReset } from "../../api/console-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button, LinkButton } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";

export default function ForgotPasswordPage() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useFormAction(async (fields) => {
    const email = fieldText(fields, "email");
    await requestPasswordReset(email);
    setSentTo(email);
  });
  return (
    <AuthLayout footer={<>Remembered it? <a href={paths.login()}>Log in</a></>}>
      <PageTitle title="Reset your password">We will email you a link to choose a new one.</PageTitle>
      {sentTo === null ? (
        <form class="form" onSubmit={form.onSubmit}>
          <FormError error={form.error} />
          <TextField label="Email" name="email" type="email" autoComplete="email" required />
          <Button type="submit" variant="primary" busy={form.busy} block>
            Email me a link
          </Button>
        </form>
      ) : (
        <div class="form">
          <Alert tone="success">
            If an account exists for <strong>{sentTo}</strong>, a link to reset its password is on its way. It works once.
          </Alert>
          <LinkButton href={paths.login()} block>
            Back to log in
          </LinkButton>
        </div>
      )}
    </AuthLayout>
  );
}
