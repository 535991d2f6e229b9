// The person's signed-in sessions (/account/sessions): this one marked, each with where and on
// what it signed in and when it was last seen; sign out one, or every other one.
import { useState } from "preact/hooks";
import { listSessions, revokeOtherSessions, revokeSession } from "../../api/settings-api.ts";
import type { SessionDto } from "../../api/settings-types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { AccountLayout } from "./account-layout.tsx";
import { describeUserAgent } from "./user-agent.ts";

const othersSignedOut = (count: number) => (count === 1 ? "1 other session was signed out." : `${count} other sessions were signed out.`);

function SessionsView({ initial }: { initial: SessionDto[] }) {
  const [sessions, setSessions] = useState(initial);
  const [confirmingOthers, setConfirmingOthers] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const zone = browserTimeZone();
  const others = sessions.filter((session) => !session.current);

  const revokeOne = useAction(async (session: SessionDto) => {
    setNotice(null);
    await revokeSession(session.id);
    setSessions((current) => current.filter((row) => row.id !== session.id));
    setNotice(`The ${describeUserAgent(session.user_agent)} session was signed out.`);
  });
  const revokeOthers = useAction(async () => {
    const { revoked } = await revokeOtherSessions();
    setSessions((current) => current.filter((row) => row.current));
    setNotice(othersSignedOut(revoked));
    setConfirmingOthers(false);
  });

  return (
    <SettingsSection
      id="sessions"
      title="Signed-in sessions"
      description="Every browser where you are logged in. Sign out one you do not recognise; changing your password signs out all but this one."
      action={
        <Button small onClick={() => { setNotice(null); setConfirmingOthers(true); }} disabled={others.length === 0} title={others.length === 0 ? "No other session is signed in." : undefined}>
          Sign out all other sessions
        </Button>
      }
    >
      {notice && <Alert tone="success">{notice}</Alert>}
      <FormError error={revokeOne.error} />
      <DataTable
        caption="Signed-in sessions"
        rows={sessions}
        rowKey={(session) => session.id}
        columns={[
          {
            label: "Device",
            cell: (session) => (
              <span class="session-device">
                <span class="session-device-name">
                  {describeUserAgent(session.user_agent)}
                  {session.current && <span class="badge">This browser</span>}
                </span>
                {session.user_agent && <span class="session-agent" title={session.user_agent}>{session.user_agent}</span>}
              </span>
            ),
          },
          { label: "Location", cell: (session) => session.location ?? "Unknown" },
          { label: "Signed in", cell: (session) => <Day iso={session.created_at} timeZone={zone} /> },
          {
            label: "Last seen",
            cell: (session) => <time class="nowrap" dateTime={session.last_seen_at} title={formatDateTime(session.last_seen_at, zone)}>{session.current ? "Now" : formatRelative(session.last_seen_at)}</time>,
          },
          {
            label: "Actions",
            actions: true,
            cell: (session) =>
              !session.current && (
                <Button small variant="ghost" busy={revokeOne.busy} onClick={() => void revokeOne.run(session)} aria-label={`Sign out the ${describeUserAgent(session.user_agent)} session`}>
                  Sign out
                </Button>
              ),
          },
        ]}
      />
      {confirmingOthers && (
        <ConfirmDialog
          open
          title="Sign out every other session?"
          confirmLabel="Sign out others"
          danger
          busy={revokeOthers.busy}
          onConfirm={() => void revokeOthers.run()}
          onClose={() => {
            revokeOthers.reset();
            setConfirmingOthers(false);
          }}
        >
          <FormError error={revokeOthers.error} />
          <p>{others.length === 1 ? "The other session" : `The ${others.length} other sessions`} must log in again. This browser stays signed in.</p>
        </ConfirmDialog>
      )}
    </SettingsSection>
  );
}

function Sessions() {
  const [sessions, reload] = useResource(listSessions, []);
  if (sessions.status === "loading") return <LoadingState label="Loading your sessions…" />;
  if (sessions.status === "failed") return <ErrorState title="Your sessions could not be loaded" error={sessions.error} onRetry={reload} />;
  return <SessionsView initial={sessions.data.sessions} />;
}

export default function SessionsPage() {
  return (
    <AccountLayout current={paths.accountSessions} title="Sessions" lede="Where you are signed in.">
      {() => <Sessions />}
    </AccountLayout>
  );
}
