// Create an account (and its personal organisation); afterwards the guard sends the person
// where `next` says, or home, which leads to creating a first project.
import { useLocation } from "preact-iso";
import { signUp } from "../../api/console-api.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { AuthLayout } from "../../layouts/auth-layout.tsx";
import { SignedOutOnly } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { signedIn } from "../../state/session.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { nameLengthMax, passwordHint, passwordLengthMax, passwordLengthMin } from "./account-rules.ts";

export default function SignupPage() {
  const { query } = useLocation();
  const form = useFormAction(async (fields) => {
    signedIn(await signUp({ name: fieldText(fields, "name"), email: fieldText(fields, "email"), password: fieldText(fields, "password") }));
  });
  return (
    <SignedOutOnly>
      <AuthLayout footer={<>Already have an account? <a href={paths.login(query.next)}>Log in</a></>}>
        <PageTitle title="Create your account">Product analytics you host yourself.</PageTitle>
        <form class="form" onSubmit={form.onSubmit}>
          <FormError error={form.error} />
          <TextField label="Name" name="name" autoComplete="name" required maxLength={nameLengthMax} />
          <TextField label="Work email" name="email" type="email" autoComplete="email" required />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={passwordLengthMin}
            maxLength={passwordLengthMax}
            hint={passwordHint}
          />
          <Button type="submit" variant="primary" busy={form.busy} block>
            Create account
          </Button>
        </form>
      </AuthLayout>
    </SignedOutOnly>
  );
}
