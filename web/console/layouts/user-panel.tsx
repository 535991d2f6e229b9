// Who is signed in, the theme switch and logging out.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { describeError } from "../api/errors.ts";
import type { UserDto } from "../api/types.ts";
import { paths } from "../paths.ts";
import { signOut } from "../state/session.ts";
import { Button } from "../ui/button.tsx";
import { LogOutIcon, SettingsIcon } from "../ui/icons.tsx";
import { ThemeSwitch } from "../ui/theme-switch.tsx";

export function UserPanel({ user }: { user: UserDto }) {
  const { route } = useLocation();
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const logOut = async () => {
    setLeaving(true);
    try {
      await signOut();
      route(paths.login(), true);
    } catch (failure) {
      setError(failure);
      setLeaving(false);
    }
  };
  return (
    <div class="user-panel">
      <a class="user-identity user-account-link" href={paths.account} title="Your account, sessions and tokens">
        <span class="avatar" aria-hidden="true">{user.name.trim().charAt(0).toUpperCase() || "?"}</span>
        <span class="user-text">
          <span class="user-name">{user.name}</span>
          <span class="user-email">{user.email}</span>
        </span>
        <SettingsIcon />
        <span class="visually-hidden">Your account</span>
      </a>
      <div class="user-actions">
        <ThemeSwitch />
        <Button small variant="ghost" busy={leaving} onClick={logOut}>
          <LogOutIcon />
          Log out
        </Button>
      </div>
      {error !== null && <p class="user-error" role="alert">{describeError(error)}</p>}
    </div>
  );
}
