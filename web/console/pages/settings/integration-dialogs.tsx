// The dialogs of the revenue integrations section: connect a provider (then its webhook URL to
// paste there), show the URL, edit name, status, secret and config, rotate the URL's token and
// delete (both confirmed: the old URL stops working at once).
import { useState } from "preact/hooks";
import {
  createIntegration, deleteIntegration, integrationProviders, rotateIntegrationToken, updateIntegration, type IntegrationDto, type IntegrationProvider,
} from "../../api/integrations.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ConfigFields, integrationNameLengthMax, providerLabels, readConfig, SecretField } from "./integration-fields.tsx";
import { useAction } from "./use-action.ts";

export const integrationTitle = (integration: IntegrationDto) => integration.name ?? providerLabels[integration.provider];

/** Where each provider takes the URL (docs/revenue.md and docs/revenue-providers.md say more). */
const pasteWhere: Record<IntegrationProvider, string> = {
  stripe: "In Stripe: Developers → Webhooks → Add endpoint, then copy the endpoint's signing secret here.",
  revenuecat: "In RevenueCat: Project settings → Integrations → Webhooks, as the webhook URL, with the same Authorization header value as here.",
  app_store: "In App Store Connect: your app → App Information → App Store Server Notifications (version 2), as the production or sandbox URL.",
  play_store: "In Google Cloud: a Pub/Sub push subscription to your Real-time developer notifications topic, with this URL as its endpoint.",
};

export function WebhookUrlDialog({ integration, onClose, fresh }: { integration: IntegrationDto; onClose(): void; fresh?: boolean }) {
  return (
    <Dialog open wide title={fresh ? `${providerLabels[integration.provider]} is connected` : `Webhook URL of ${integrationTitle(integration)}`} onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
      <CodeBlock code={integration.webhook_url} label="Webhook URL" />
      <p class="settings-description">{pasteWhere[integration.provider]}</p>
      <Alert tone="info">Anyone with this URL can reach the webhook: keep it private. Rotating it makes this one stop working at once.</Alert>
    </Dialog>
  );
}

const createFormId = "create-integration";

export function CreateIntegrationDialog({ project, onClose, onCreated }: { project: ProjectDto; onClose(): void; onCreated(integration: IntegrationDto): void }) {
  const [provider, setProvider] = useState<IntegrationProvider>("stripe");
  const [created, setCreated] = useState<IntegrationDto | null>(null);
  const form = useFormAction(async (fields) => {
    const secret = fieldText(fields, "secret");
    const name = fieldText(fields, "name").trim();
    const integration = await createIntegration(project.id, {
      provider, name: name === "" ? null : name, ...(secret === "" ? {} : { secret }), config: readConfig(provider, fields),
    });
    setCreated(integration);
    onCreated(integration);
  });
  if (created) return <WebhookUrlDialog integration={created} onClose={onClose} fresh />;
  return (
    <Dialog
      open
      title="Connect a revenue provider"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={createFormId} variant="primary" busy={form.busy}>Connect</Button>
        </>
      }
    >
      <form id={createFormId} class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <SelectField label="Provider" name="provider" onChange={(event) => setProvider(event.currentTarget.value as IntegrationProvider)}>
          {integrationProviders.map((name) => <option key={name} value={name} selected={name === provider}>{providerLabels[name]}</option>)}
        </SelectField>
        <TextField label="Name (optional)" name="name" maxLength={integrationNameLengthMax} placeholder={`${providerLabels[provider]} live`} />
        <SecretField key={`secret-${provider}`} provider={provider} existing={null} />
        <ConfigFields key={`config-${provider}`} provider={provider} config={{}} />
      </form>
    </Dialog>
  );
}

const editFormId = "edit-integration";

export function EditIntegrationDialog({ project, integration, onClose, onSaved }: { project: ProjectDto; integration: IntegrationDto; onClose(): void; onSaved(integration: IntegrationDto): void }) {
  const form = useFormAction(async (fields) => {
    const secret = fieldText(fields, "secret");
    const name = fieldText(fields, "name").trim();
    onSaved(await updateIntegration(project.id, integration.id, {
      name: name === "" ? null : name,
      status: fieldText(fields, "status") === "disabled" ? "disabled" : "active",
      ...(secret === "" ? {} : { secret }),
      config: readConfig(integration.provider, fields),
    }));
  });
  return (
    <Dialog
      open
      title={`Edit ${integrationTitle(integration)}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={form.busy}>Cancel</Button>
          <Button type="submit" form={editFormId} variant="primary" busy={form.busy}>Save</Button>
        </>
      }
    >
      <form id={editFormId} class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <TextField label="Name (optional)" name="name" maxLength={integrationNameLengthMax} defaultValue={integration.name ?? ""} />
        <SelectField label="Status" name="status" hint="A disabled integration's webhook URL answers 404: the provider retries, then gives up.">
          <option value="active" selected={integration.status === "active"}>Active</option>
          <option value="disabled" selected={integration.status === "disabled"}>Disabled</option>
        </SelectField>
        <SecretField provider={integration.provider} existing={integration} />
        <ConfigFields provider={integration.provider} config={integration.config} />
      </form>
    </Dialog>
  );
}

export function RotateIntegrationDialog({ project, integration, onClose, onRotated }: { project: ProjectDto; integration: IntegrationDto; onClose(): void; onRotated(integration: IntegrationDto): void }) {
  const rotate = useAction(async () => onRotated(await rotateIntegrationToken(project.id, integration.id)));
  return (
    <ConfirmDialog open title="Rotate the webhook URL?" confirmLabel="Rotate URL" danger busy={rotate.busy} onConfirm={() => void rotate.run()} onClose={onClose}>
      <FormError error={rotate.error} />
      <p>
        <strong>{integrationTitle(integration)}</strong> gets a new webhook URL and the current one answers 404 at once: paste the new URL into {providerLabels[integration.provider]} right away, or notifications sent meanwhile are retried by the provider and may be lost once it gives up.
      </p>
    </ConfirmDialog>
  );
}

export function DeleteIntegrationDialog({ project, integration, onClose, onDeleted }: { project: ProjectDto; integration: IntegrationDto; onClose(): void; onDeleted(): void }) {
  const remove = useAction(async () => {
    await deleteIntegration(project.id, integration.id);
    onDeleted();
  });
  return (
    <ConfirmDialog open title="Delete this integration?" confirmLabel="Delete integration" danger busy={remove.busy} onConfirm={() => void remove.run()} onClose={onClose}>
      <FormError error={remove.error} />
      <p>
        <strong>{integrationTitle(integration)}</strong>'s webhook URL answers 404 from now on. Revenue events already recorded stay. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
