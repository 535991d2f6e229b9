// The person's personal access tokens (/account/tokens): name, organisation, scopes, projects,
// last use and expiry; create one (its secret shown once) or revoke one.
import { useState } from "preact/hooks";
import { listProjects } from "../../api/console-api.ts";
import { listTokens, revokeToken } from "../../api/settings-api.ts";
import type { TokenDto } from "../../api/settings-types.ts";
import type { MeResponse, ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon, PlusIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { browserTimeZone, Day } from "../settings/dates.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { AccountLayout } from "./account-layout.tsx";
import { CreateTokenDialog } from "./create-token-dialog.tsx";

interface TokensData {
  tokens: TokenDto[];
  projectsByOrg: Map<string, ProjectDto[]>;
}

async function loadTokens(me: MeResponse): Promise<TokensData> {
  const [{ tokens }, projects] = await Promise.all([listTokens(), Promise.all(me.orgs.map(async (org) => [org.id, (await listProjects(org.id)).projects] as const))]);
  return { tokens, projectsByOrg: new Map(projects) };
}

function ProjectsCell({ token, projects }: { token: TokenDto; projects: ProjectDto[] }) {
  if (token.project_ids === null) return <>All projects</>;
  const names = token.project_ids.map((id) => projects.find((project) => project.id === id)?.name ?? "a deleted project");
  return <>{names.join(", ")}</>;
}

function RevokeDialog({ token, onClose, onRevoked }: { token: TokenDto; onClose(): void; onRevoked(): void }) {
  const revoke = useAction(async () => {
    await revokeToken(token.id);
    onRevoked();
  });
  return (
    <ConfirmDialog open title="Revoke this token?" confirmLabel="Revoke token" danger busy={revoke.busy} onConfirm={() => void revoke.run()} onClose={onClose}>
      <FormError error={revoke.error} />
      <p>
        <strong>{token.name}</strong> (<code class="inline-key">{token.prefix}…</code>) stops working at once, and so do the region tokens issued with it. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function TokensView({ me, data }: { me: MeResponse; data: TokensData }) {
  const [tokens, setTokens] = useState(data.tokens);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<TokenDto | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const zone = browserTimeZone();
  const orgName = (orgId: string) => me.orgs.find((org) => org.id === orgId)?.name ?? "An organisation you left";
  return (
    <SettingsSection
      id="tokens"
      title="Personal access tokens"
      description="Scripts and integrations call the /v1 API with a token. Each acts as you, in one organisation, with the scopes and projects you choose, and never more than your role there holds."
      action={
        me.orgs.length > 0 && (
          <Button variant="primary" small onClick={() => { setNotice(null); setCreating(true); }}>
            <PlusIcon /> Create token
          </Button>
        )
      }
    >
      {notice && <Alert tone="success">{notice}</Alert>}
      <DataTable
        caption="Personal access tokens"
        rows={tokens}
        rowKey={(token) => token.id}
        empty={
          <EmptyState icon={<KeyIcon size={20} />} title="No tokens">
            {me.orgs.length > 0 ? "Create one to call the API from a script or an integration." : "Tokens act in an organisation, and you belong to none."}
          </EmptyState>
        }
        columns={[
          {
            label: "Name",
            cell: (token) => (
              <span class="token-name">
                {token.name}
                <code class="token-prefix">{token.prefix}…</code>
              </span>
            ),
          },
          { label: "Organisation", cell: (token) => orgName(token.org_id) },
          {
            label: "Scopes",
            cell: (token) => (
              <ul class="scope-list" aria-label={`Scopes of ${token.name}`}>
                {token.scopes.map((scope) => <li key={scope}><code>{scope}</code></li>)}
              </ul>
            ),
          },
          { label: "Projects", cell: (token) => <ProjectsCell token={token} projects={data.projectsByOrg.get(token.org_id) ?? []} /> },
          {
            label: "Last used",
            cell: (token) => (token.last_used_at ? <time class="nowrap" dateTime={token.last_used_at} title={formatDateTime(token.last_used_at, zone)}>{formatRelative(token.last_used_at)}</time> : "Never"),
          },
          { label: "Expires", cell: (token) => (token.expires_at ? <Day iso={token.expires_at} timeZone={zone} /> : "Never") },
          {
            label: "Actions",
            actions: true,
            cell: (token) => (
              <Button small variant="ghost" aria-label={`Revoke ${token.name}`} onClick={() => { setNotice(null); setRevoking(token); }}>
                Revoke
              </Button>
            ),
          },
        ]}
      />
      {creating && (
        <CreateTokenDialog
          orgs={me.orgs}
          projectsByOrg={data.projectsByOrg}
          onClose={() => setCreating(false)}
          onCreated={(token) => setTokens((current) => [token, ...current])}
        />
      )}
      {revoking && (
        <RevokeDialog
          token={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setTokens((current) => current.filter((token) => token.id !== revoking.id));
            setNotice(`${revoking.name} is revoked.`);
            setRevoking(null);
          }}
        />
      )}
    </SettingsSection>
  );
}

function Tokens({ me }: { me: MeResponse }) {
  const [data, reload] = useResource(() => loadTokens(me), [me]);
  if (data.status === "loading") return <LoadingState label="Loading your tokens…" />;
  if (data.status === "failed") return <ErrorState title="Your tokens could not be loaded" error={data.error} onRetry={reload} />;
  return <TokensView me={me} data={data.data} />;
}

export default function TokensPage() {
  return (
    <AccountLayout current={paths.accountTokens} title="Tokens" lede="Personal access tokens for the API.">
      {(me) => <Tokens me={me} />}
    </AccountLayout>
  );
}
