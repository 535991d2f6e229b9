// Log in; afterwards the guard sends the person where `next` says, or home.
import { useLocation } from "preact-iso";
import { logIn } from "../../api/console-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { SignedOutOnly } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { signedIn } from "../../state/session.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";

export default function LoginPage() {
  const { query } = useLocation();
  const form = useFormAction(async (fields) => {
    signedIn(await logIn({ email: fieldText(fields, "email"), password: fieldText(fields, "password") }));
  });
  return (
    <SignedOutOnly>
      <AuthLayout footer={<>New here? <a href={paths.signup(query.next)}>Create an account</a></>}>
        <PageTitle title="Log in">Welcome back.</PageTitle>
        <form class="form" onSubmit={form.onSubmit}>
          <FormError error={form.error} />
          <TextField label="Email" name="email" type="email" autoComplete="email" required />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            aside={<a href={paths.forgotPassword} class="field-aside">Forgot password?</a>}
          />
          <Button type="submit" variant="primary" busy={form.busy} block>
            Log in
          </Button>
        </form>
      </AuthLayout>
    </SignedOutOnly>
  );
}
