// The OAuth consent page (/consent/:requestId): the authorization endpoint sends the browser
// here, signed in or after logging in. The person sees which application asks, where it will
// send them back and which APIs its tokens reach; picks the organisation, the scopes (only
// those their role there holds and the application registered for, starting from what it
// asked) and optionally projects; then approves or denies. Either way the browser goes back to
// the application's registered redirect URI with the answer.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { approveAuthorization, denyAuthorization, getAuthorizationRequest, type AuthorizationRequestDto } from "../../api/oauth-api.ts";
import { listProjects } from "../../api/console-api.ts";
import type { MeResponse, ProjectDto } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { SelectField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { useAction } from "../settings/use-action.ts";
import { ProjectChoice } from "../account/project-choice.tsx";
import { ScopePicker } from "../account/scope-picker.tsx";
import { scopesOfRole, sortScopes } from "../account/scopes.ts";

const projectsMax = 100;

/** What each resource a token may be issued for is, in words. */
function describeResource(resource: string): string {
  if (resource.endsWith("/mcp")) return "the MCP server for AI agents";
  if (resource.endsWith("/v1")) return "the programmatic API (/v1)";
  return resource;
}

function ConsentForm({ me, request }: { me: MeResponse; request: AuthorizationRequestDto }) {
  const [orgId, setOrgId] = useState(me.orgs[0]!.id);
  const org = me.orgs.find((candidate) => candidate.id === orgId)!;
  const offered = new Set(request.client_scopes);
  const prefill = (role: MeResponse["orgs"][number]["role"]) => new Set(request.scopes.filter((scope) => scopesOfRole(role).has(scope)));
  const [scopes, setScopes] = useState<Set<string>>(() => prefill(org.role));
  const [projectScope, setProjectScope] = useState<"all" | "some">("all");
  const [projectIds, setProjectIds] = useState<Set<string>>(new Set());
  const [projects] = useResource<ProjectDto[]>(async () => (await listProjects(orgId)).projects, [orgId]);
  const redirectHost = new URL(request.redirect_uri).host;

  const chooseOrg = (id: string) => {
    setOrgId(id);
    setScopes(prefill(me.orgs.find((candidate) => candidate.id === id)!.role));
    setProjectScope("all");
    setProjectIds(new Set());
  };
  const approve = useAction(async () => {
    if (scopes.size === 0) throw new Error("choose at least one scope, or deny");
    if (projectScope === "some" && projectIds.size === 0) throw new Error("choose at least one project, or every project");
    if (projectIds.size > projectsMax) throw new Error(`choose at most ${projectsMax} projects`);
    const { redirect_to } = await approveAuthorization(request.id, {
      org_id: orgId,
      scopes: sortScopes(scopes),
      ...(projectScope === "some" ? { project_ids: [...projectIds] } : {}),
    });
    location.assign(redirect_to);
  });
  const deny = useAction(async () => {
    const { redirect_to } = await denyAuthorization(request.id);
    location.assign(redirect_to);
  });

  return (
    <div class="page settings-page consent-page">
      <PageTitle title={`Connect ${request.client_name}?`}>
        <strong>{request.client_name}</strong> asks to act as you ({me.user.email}). Afterwards you go back to <code class="inline-key">{redirectHost}</code>.
      </PageTitle>
      <Alert tone="info">
        Its tokens will reach {request.resources.map(describeResource).join(" and ")}. You can disconnect it at any time under Account, Connected apps.
      </Alert>
      <form class="form" onSubmit={(event) => { event.preventDefault(); void approve.run(); }}>
        <FormError error={approve.error ?? deny.error} />
        <SelectField label="Organisation" name="org" value={orgId} onChange={(event) => chooseOrg(event.currentTarget.value)} hint="The application acts in one organisation.">
          {me.orgs.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>{candidate.name} ({candidate.role})</option>
          ))}
        </SelectField>
        <ScopePicker role={org.role} chosen={scopes} onChange={setScopes} offered={offered} subject="the application" />
        {projects.status === "ready" && (
          <ProjectChoice projects={projects.data} scope={projectScope} chosen={projectIds} onScope={setProjectScope} onChosen={setProjectIds} subject="the application" />
        )}
        {projects.status === "failed" && <FormError error={projects.error} />}
        <div class="form-actions">
          <Button onClick={() => void deny.run()} busy={deny.busy} disabled={approve.busy}>Deny</Button>
          <Button type="submit" variant="primary" busy={approve.busy} disabled={deny.busy}>Approve</Button>
        </div>
      </form>
    </div>
  );
}

function Consent({ me, requestId }: { me: MeResponse; requestId: string }) {
  const [request, reload] = useResource(() => getAuthorizationRequest(requestId), [requestId]);
  if (request.status === "loading") return <LoadingState label="Loading the request…" />;
  if (request.status === "failed") {
    return <ErrorState title="This authorization request is no longer valid" error={request.error} onRetry={reload} />;
  }
  if (me.orgs.length === 0) return <ErrorState title="You belong to no organisation" error={new Error("an application acts in an organisation; create or join one first")} />;
  return <ConsentForm me={me} request={request.data} />;
}

export default function ConsentPage() {
  const { params } = useRoute();
  return (
    <RequireSignedIn>
      {(me) => (
        <FocusLayout me={me}>
          <Consent me={me} requestId={params.requestId!} />
        </FocusLayout>
      )}
    </RequireSignedIn>
  );
}
