// Creating a personal access token: name, organisation, scopes, projects (all, or up to 100
// chosen) and expiry; then its secret, shown this once with a copy button.
import { useState } from "preact/hooks";
import { createToken } from "../../api/settings-api.ts";
import type { CreatedTokenResponse, TokenDto } from "../../api/settings-types.ts";
import type { OrgDto, ProjectDto } from "../../api/types.ts";
import { useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ProjectChoice } from "./project-choice.tsx";
import { ScopePicker } from "./scope-picker.tsx";
import { scopesOfRole, sortScopes } from "./scopes.ts";

const tokenNameLengthMax = 100;
const tokenProjectsMax = 100;
const expiryChoices = [
  { days: "7", label: "7 days" },
  { days: "30", label: "30 days" },
  { days: "90", label: "90 days" },
  { days: "365", label: "1 year" },
  { days: "never", label: "Never" },
] as const;
const defaultExpiry = "30";
const formId = "create-token";

interface CreateTokenDialogProps {
  orgs: OrgDto[];
  projectsByOrg: ReadonlyMap<string, ProjectDto[]>;
  onClose(): void;
  onCreated(token: TokenDto): void;
}

function CreatedSecret({ created, onClose }: { created: CreatedTokenResponse; onClose(): void }) {
  return (
    <Dialog open wide title="Copy the token now" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
      <Alert tone="info">This is the only time the token is shown: only its hash is kept. Store it somewhere safe now.</Alert>
      <CodeBlock code={created.secret} label="Personal access token" />
      <p class="settings-description">
        Send it as <code class="inline-key">Authorization: Bearer {created.token.prefix}…</code> to the <code class="inline-key">/v1</code> API.
      </p>
    </Dialog>
  );
}

export function CreateTokenDialog({ orgs, projectsByOrg, onClose, onCreated }: CreateTokenDialogProps) {
  const [orgId, setOrgId] = useState(orgs[0]!.id);
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [projectScope, setProjectScope] = useState<"all" | "some">("all");
  const [projectIds, setProjectIds] = useState<Set<string>>(new Set());
  const [created, setCreated] = useState<CreatedTokenResponse | null>(null);
  const org = orgs.find((candidate) => candidate.id === orgId)!;
  const projects = projectsByOrg.get(orgId) ?? [];

  const chooseOrg = (id: string) => {
    const role = orgs.find((candidate) => candidate.id === id)!.role;
    setOrgId(id);
    setScopes(new Set([...scopes].filter((scope) => scopesOfRole(role).has(scope))));
    setProjectScope("all");
    setProjectIds(new Set());
  };
  const form = useFormAction(async (fields) => {
    if (scopes.size === 0) throw new Error("choose at least one scope");
    if (projectScope === "some" && projectIds.size === 0) throw new Error("choose at least one project, or every project");
    if (projectIds.size > tokenProjectsMax) throw new Error(`choose at most ${tokenProjectsMax} projects`);
    const expiry = fields.get("expiry");
    const result = await createToken({
      name: String(fields.get("name") ?? "").trim(),
      org_id: orgId,
      scopes: sortScopes(scopes),
      ...(projectScope === "some" ? { project_ids: [...projectIds] } : {}),
      ...(expiry !== "never" ? { expires_in_days: Number(expiry) } : {}),
    });
    setCreated(result);
    onCreated(result.token);
  });

  if (created) return <CreatedSecret created={created} onClose={onClose} />;
  return (
    <Dialog
      open
      wide
      title="Create a personal access token"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={form.busy}>Create token</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="field-row">
          <TextField label="Token name" name="name" required maxLength={tokenNameLengthMax} placeholder="Nightly export" hint="Say where it is used, to know what breaks when it is revoked." />
          <SelectField label="Organisation" name="org" value={orgId} onChange={(event) => chooseOrg(event.currentTarget.value)} hint="A token acts in one organisation.">
            {orgs.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>{candidate.name} ({candidate.role})</option>
            ))}
          </SelectField>
        </div>
        <ScopePicker role={org.role} chosen={scopes} onChange={setScopes} />
        <ProjectChoice projects={projects} scope={projectScope} chosen={projectIds} onScope={setProjectScope} onChosen={setProjectIds} />
        <SelectField label="Expires after" name="expiry" hint="A token that never expires works until it is revoked.">
          {expiryChoices.map(({ days, label }) => (
            <option key={days} value={days} selected={days === defaultExpiry}>{label}</option>
          ))}
        </SelectField>
      </form>
    </Dialog>
  );
}
