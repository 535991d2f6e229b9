// Revenue integrations (docs/revenue.md): each connects a payment provider, RevenueCat or an
// app store to the project through a webhook URL, whose notifications become revenue events.
// The secret is never shown back (its last four characters tell it apart).
import { useState } from "preact/hooks";
import { listIntegrations, type IntegrationDto } from "../../api/integrations.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { ActivityIcon, PlusIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { Day } from "./dates.tsx";
import { CreateIntegrationDialog, DeleteIntegrationDialog, EditIntegrationDialog, integrationTitle, RotateIntegrationDialog, WebhookUrlDialog } from "./integration-dialogs.tsx";
import { providerLabels } from "./integration-fields.tsx";
import { adminOnlyReason } from "./permissions.ts";
import { roleNoteId, SettingsSection } from "./settings-section.tsx";

const sectionId = "revenue-integrations";

type Opened = { kind: "create" } | { kind: "url" | "edit" | "rotate" | "delete"; integration: IntegrationDto } | null;

function IntegrationsView({ project, initial, blocked }: { project: ProjectDto; initial: IntegrationDto[]; blocked: string | null }) {
  const [integrations, setIntegrations] = useState(initial);
  const [opened, setOpened] = useState<Opened>(null);
  const upsert = (changed: IntegrationDto) =>
    setIntegrations((current) => [...current.filter((item) => item.id !== changed.id), changed].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)));
  const close = () => setOpened(null);
  const describedBy = blocked ? roleNoteId(sectionId) : undefined;
  const writeProps = { disabled: blocked !== null, "aria-describedby": describedBy };
  return (
    <>
      <div class="section-toolbar">
        <Button variant="primary" small onClick={() => setOpened({ kind: "create" })} {...writeProps}>
          <PlusIcon /> Connect a provider
        </Button>
      </div>
      {integrations.length === 0 && (
        <EmptyState icon={<ActivityIcon size={20} />} title="No revenue integrations">
          Connect Stripe, RevenueCat, the App Store or Google Play to record charges, refunds and subscriptions as events.
        </EmptyState>
      )}
      {integrations.map((integration) => {
        const title = integrationTitle(integration);
        return (
          <div key={integration.id} class="key-environment" role="group" aria-label={`${title} integration`}>
            <h3 class="key-environment-name">{title}</h3>
            <div class="key-card">
              <CodeBlock code={integration.webhook_url} label={`Webhook URL of ${title}`} />
              <p class="key-meta">
                {providerLabels[integration.provider]} · {integration.status === "active" ? "Active" : "Disabled: its URL answers 404"} ·{" "}
                {integration.has_secret ? <>secret ending <code class="inline-key">{integration.secret_last4}</code></> : "no secret"} · created{" "}
                <Day iso={integration.created_at} timeZone={project.timezone} />
              </p>
              {!integration.region_synced && <p class="key-warning">The region has not taken this integration's latest state yet; it is sent again within a minute.</p>}
              <div class="key-actions">
                <Button small onClick={() => setOpened({ kind: "edit", integration })} {...writeProps} aria-label={`Edit ${title}`}>Edit</Button>
                <Button small onClick={() => setOpened({ kind: "rotate", integration })} {...writeProps} aria-label={`Rotate the webhook URL of ${title}`}>Rotate URL</Button>
                <Button small variant="ghost" onClick={() => setOpened({ kind: "delete", integration })} {...writeProps} aria-label={`Delete ${title}`}>Delete</Button>
              </div>
            </div>
          </div>
        );
      })}
      {opened?.kind === "create" && <CreateIntegrationDialog project={project} onClose={close} onCreated={upsert} />}
      {opened?.kind === "url" && <WebhookUrlDialog integration={opened.integration} onClose={close} />}
      {opened?.kind === "edit" && <EditIntegrationDialog project={project} integration={opened.integration} onClose={close} onSaved={(saved) => { upsert(saved); close(); }} />}
      {opened?.kind === "rotate" && (
        <RotateIntegrationDialog project={project} integration={opened.integration} onClose={close} onRotated={(rotated) => { upsert(rotated); setOpened({ kind: "url", integration: rotated }); }} />
      )}
      {opened?.kind === "delete" && (
        <DeleteIntegrationDialog
          project={project}
          integration={opened.integration}
          onClose={close}
          onDeleted={() => {
            const gone = opened.integration.id;
            setIntegrations((current) => current.filter((item) => item.id !== gone));
            close();
          }}
        />
      )}
    </>
  );
}

export function IntegrationsSection({ project }: { project: ProjectDto }) {
  const blocked = adminOnlyReason(project.role, "connect, change or delete revenue integrations");
  const [integrations, reload] = useResource(() => listIntegrations(project.id), [project.id]);
  return (
    <SettingsSection
      id={sectionId}
      title="Revenue integrations"
      description="Payments and subscriptions become revenue events ($charge, $refund, $subscription_…) through a webhook URL you paste into the provider."
      blockedReason={blocked}
    >
      {integrations.status === "loading" && <LoadingState label="Loading the revenue integrations…" />}
      {integrations.status === "failed" && <ErrorState title="The revenue integrations could not be loaded" error={integrations.error} onRetry={reload} />}
      {integrations.status === "ready" && <IntegrationsView project={project} initial={integrations.data.integrations} blocked={blocked} />}
    </SettingsSection>
  );
}
