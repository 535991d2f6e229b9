// Flag secret keys: what a server SDK presents to download an environment's flag definitions
// for local evaluation (PostHog's "personal API key" setting). The secret is shown once, in
// the dialog that created it; the list tells keys apart by their first characters.
import { useState } from "preact/hooks";
import { createFlagSecretKey, listFlagSecretKeys, revokeFlagSecretKey } from "../../api/settings-api.ts";
import type { FlagSecretKeyCreated, FlagSecretKeyDto } from "../../api/settings-types.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon, PlusIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { nameLengthMax } from "../auth/account-rules.ts";
import { Day } from "./dates.tsx";
import { flagsWriteReason } from "./permissions.ts";
import { roleNoteId, SettingsSection } from "./settings-section.tsx";
import { useAction } from "./use-action.ts";

const sectionId = "flag-secret-keys";
const createFormId = "create-flag-secret-key";

function CreateDialog({ project, onClose, onCreated }: { project: ProjectDto; onClose(): void; onCreated(key: FlagSecretKeyDto): void }) {
  const [created, setCreated] = useState<FlagSecretKeyCreated | null>(null);
  const form = useFormAction(async (fields) => {
    const result = await createFlagSecretKey(project.id, { name: fieldText(fields, "name").trim(), environment: fieldText(fields, "environment") });
    setCreated(result);
    onCreated(result.key);
  });
  if (created) {
    return (
      <Dialog open wide title="Copy the flag secret key now" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <Alert tone="info">This is the only time the secret is shown: only its hash is kept. Store it in your server's secrets now.</Alert>
        <CodeBlock code={created.secret} label="Flag secret key" />
        <p class="settings-description">
          Give it to a server SDK with the {created.key.environment} public key, so it downloads the {created.key.environment} flags and evaluates them locally.
        </p>
      </Dialog>
    );
  }
  return (
    <Dialog
      open
      title="Create a flag secret key"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={createFormId} variant="primary" busy={form.busy}>Create key</Button>
        </>
      }
    >
      <form id={createFormId} class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <TextField label="Name" name="name" required maxLength={nameLengthMax} placeholder="Checkout service" hint="Say which server uses it, to know what breaks when it is revoked." />
        <SelectField label="Environment" name="environment" hint="The key downloads this environment's flags only.">
          {project.environments.map(({ name, is_default }) => (
            <option key={name} value={name} selected={is_default}>{name}</option>
          ))}
        </SelectField>
      </form>
    </Dialog>
  );
}

function RevokeDialog({ project, secretKey, onClose, onRevoked }: { project: ProjectDto; secretKey: FlagSecretKeyDto; onClose(): void; onRevoked(key: FlagSecretKeyDto): void }) {
  const revoke = useAction(async () => onRevoked(await revokeFlagSecretKey(project.id, secretKey.id)));
  return (
    <ConfirmDialog open title="Revoke this flag secret key?" confirmLabel="Revoke key" danger busy={revoke.busy} onConfirm={() => void revoke.run()} onClose={onClose}>
      <FormError error={revoke.error} />
      <p>
        Servers using <strong>{secretKey.name}</strong> (<code class="inline-key">{secretKey.prefix}…</code>) can no longer download the {secretKey.environment} flags. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function SecretKeysView({ project, initial, blocked }: { project: ProjectDto; initial: FlagSecretKeyDto[]; blocked: string | null }) {
  const [keys, setKeys] = useState(initial);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<FlagSecretKeyDto | null>(null);
  const upsert = (changed: FlagSecretKeyDto) => setKeys((current) => [...current.filter((key) => key.id !== changed.id), changed].sort((a, b) => a.created_at.localeCompare(b.created_at)));
  const describedBy = blocked ? roleNoteId(sectionId) : undefined;
  return (
    <>
      <div class="section-toolbar">
        <Button variant="primary" small onClick={() => setCreating(true)} disabled={blocked !== null} aria-describedby={describedBy}>
          <PlusIcon /> Create flag secret key
        </Button>
      </div>
      <DataTable
        caption="Flag secret keys"
        rows={keys}
        rowKey={(key) => key.id}
        empty={
          <EmptyState icon={<KeyIcon size={20} />} title="No flag secret keys">
            Create one for each server that evaluates flags locally.
          </EmptyState>
        }
        columns={[
          { label: "Name", cell: (key) => key.name },
          { label: "Environment", cell: (key) => key.environment },
          { label: "Key", cell: (key) => <code class="inline-key nowrap">{key.prefix}…</code> },
          { label: "Created", cell: (key) => <Day iso={key.created_at} timeZone={project.timezone} /> },
          {
            label: "Status",
            cell: (key) =>
              key.revoked_at ? (
                <>
                  Revoked <Day iso={key.revoked_at} timeZone={project.timezone} />
                </>
              ) : (
                "Active"
              ),
          },
          {
            label: "Actions",
            actions: true,
            cell: (key) =>
              key.revoked_at === null && (
                <Button small variant="ghost" onClick={() => setRevoking(key)} disabled={blocked !== null} aria-describedby={describedBy} aria-label={`Revoke ${key.name}`}>
                  Revoke
                </Button>
              ),
          },
        ]}
      />
      {creating && <CreateDialog project={project} onClose={() => setCreating(false)} onCreated={upsert} />}
      {revoking && (
        <RevokeDialog
          project={project}
          secretKey={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={(key) => {
            upsert(key);
            setRevoking(null);
          }}
        />
      )}
    </>
  );
}

export function FlagSecretKeysSection({ project }: { project: ProjectDto }) {
  const blocked = flagsWriteReason(project.role);
  const [keys, reload] = useResource(() => listFlagSecretKeys(project.id), [project.id]);
  return (
    <SettingsSection
      id={sectionId}
      title="Flag secret keys"
      description="Server SDKs that evaluate feature flags locally download an environment's flag definitions with a flag secret key. Unlike public keys, keep these secret."
      blockedReason={blocked}
    >
      {keys.status === "loading" && <LoadingState label="Loading the flag secret keys…" />}
      {keys.status === "failed" && <ErrorState title="The flag secret keys could not be loaded" error={keys.error} onRetry={reload} />}
      {keys.status === "ready" && <SecretKeysView project={project} initial={keys.data.keys} blocked={blocked} />}
    </SettingsSection>
  );
}
