// Applications the person connected through OAuth (/account/connections): which organisation
// each acts in, with which scopes, since when and when last used; revoking one ends every
// token it holds at once.
import { useState } from "preact/hooks";
import { listConnections, revokeConnection, type ConnectionDto } from "../../api/oauth-api.ts";
import type { MeResponse } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { AccountLayout } from "./account-layout.tsx";

function RevokeDialog({ connection, onClose, onRevoked }: { connection: ConnectionDto; onClose(): void; onRevoked(): void }) {
  const revoke = useAction(async () => {
    await revokeConnection(connection.id);
    onRevoked();
  });
  return (
    <ConfirmDialog open title="Disconnect this application?" confirmLabel="Revoke access" danger busy={revoke.busy} onConfirm={() => void revoke.run()} onClose={onClose}>
      <FormError error={revoke.error} />
      <p>
        <strong>{connection.client_name}</strong> loses access at once: every token it holds stops working. It can only come back by asking you again.
      </p>
    </ConfirmDialog>
  );
}

function ConnectionsView({ me, initial }: { me: MeResponse; initial: ConnectionDto[] }) {
  const [connections, setConnections] = useState(initial);
  const [revoking, setRevoking] = useState<ConnectionDto | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const zone = browserTimeZone();
  const orgName = (orgId: string) => me.orgs.find((org) => org.id === orgId)?.name ?? "An organisation you left";
  return (
    <SettingsSection
      id="connections"
      title="Connected applications"
      description="Applications and AI agents you allowed to act as you through OAuth. Each acts in one organisation with the scopes you approved, and never more than your role there holds."
    >
      {notice && <Alert tone="success">{notice}</Alert>}
      <DataTable
        caption="Connected applications"
        rows={connections}
        rowKey={(connection) => connection.id}
        empty={<EmptyState icon={<KeyIcon size={20} />} title="No connected applications">An application you approve on a consent page appears here.</EmptyState>}
        columns={[
          { label: "Application", cell: (connection) => connection.client_name },
          { label: "Organisation", cell: (connection) => orgName(connection.org_id) },
          {
            label: "Scopes",
            cell: (connection) => (
              <ul class="scope-list" aria-label={`Scopes of ${connection.client_name}`}>
                {connection.scopes.map((scope) => <li key={scope}><code>{scope}</code></li>)}
              </ul>
            ),
          },
          { label: "Connected", cell: (connection) => <Day iso={connection.created_at} timeZone={zone} /> },
          {
            label: "Last used",
            cell: (connection) =>
              connection.last_used_at ? <time class="nowrap" dateTime={connection.last_used_at} title={formatDateTime(connection.last_used_at, zone)}>{formatRelative(connection.last_used_at)}</time> : "Never",
          },
          {
            label: "Actions",
            actions: true,
            cell: (connection) => (
              <Button small variant="ghost" aria-label={`Revoke ${connection.client_name}`} onClick={() => { setNotice(null); setRevoking(connection); }}>
                Revoke
              </Button>
            ),
          },
        ]}
      />
      {revoking && (
        <RevokeDialog
          connection={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setConnections((current) => current.filter((connection) => connection.id !== revoking.id));
            setNotice(`${revoking.client_name} is disconnected.`);
            setRevoking(null);
          }}
        />
      )}
    </SettingsSection>
  );
}

function Connections({ me }: { me: MeResponse }) {
  const [data, reload] = useResource(listConnections, []);
  if (data.status === "loading") return <LoadingState label="Loading your connected applications…" />;
  if (data.status === "failed") return <ErrorState title="Your connected applications could not be loaded" error={data.error} onRetry={reload} />;
  return <ConnectionsView me={me} initial={data.data.connections} />;
}

export default function ConnectionsPage() {
  return (
    <AccountLayout current={paths.accountConnections} title="Connected apps" lede="Applications that act as you through OAuth.">
      {(me) => <Connections me={me} />}
    </AccountLayout>
  );
}
