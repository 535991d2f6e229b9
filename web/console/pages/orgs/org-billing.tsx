// An organisation's billing page (/orgs/{orgId}/billing): plan, usage against the included
// volumes, current and projected invoice, the spend cap (owners change it; others read it)
// and the ingest stage. Linked from the organisation's settings.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { getBilling, type BillingOverview } from "../../api/billing-api.ts";
import type { MeResponse, OrgDto } from "../../api/types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { LinkButton } from "../../ui/button.tsx";
import { SearchOffIcon } from "../../ui/icons.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { IngestSection, PlanSection, SpendCapSection, UsageSection } from "./billing-sections.tsx";

/** The sections; after a write the overview is read again in place, so the sections (and their messages) stay. */
function BillingSections({ org, initial }: { org: OrgDto; initial: BillingOverview }) {
  const [billing, setBilling] = useState(initial);
  const refresh = async () => setBilling(await getBilling(org.id));
  return (
    <>
      {!billing.payment_provider.configured && (
        <Alert tone="info">This deployment has no payment provider: every organisation is on the self-hosted plan, without limits or invoices.</Alert>
      )}
      <PlanSection org={org} billing={billing} />
      <UsageSection billing={billing} />
      <SpendCapSection org={org} billing={billing} onSaved={refresh} />
      <IngestSection billing={billing} />
    </>
  );
}

function OrgBilling({ org }: { org: OrgDto }) {
  const [billing, reload] = useResource(() => getBilling(org.id), [org.id]);
  return (
    <div class="page settings-page settings-wide">
      <PageTitle title="Billing">
        <span class="text-strong">{org.name}</span>: its plan, usage, invoices and spend cap. <a href={paths.orgSettings(org.id)}>Organisation settings</a>
      </PageTitle>
      {billing.status === "loading" && <LoadingState label="Loading billing…" />}
      {billing.status === "failed" && <ErrorState title="Billing could not be loaded" error={billing.error} onRetry={reload} />}
      {billing.status === "ready" && <BillingSections org={org} initial={billing.data} />}
    </div>
  );
}

function OrgNotFound() {
  return (
    <div class="page settings-wide">
      <PageTitle title="Billing" />
      <EmptyState icon={<SearchOffIcon size={20} />} title="Organisation not found" action={<LinkButton href={paths.account} variant="primary">See your organisations</LinkButton>}>
        You are not a member of it, or you left it.
      </EmptyState>
    </div>
  );
}

export default function OrgBillingPage() {
  const { params } = useRoute();
  return (
    <RequireSignedIn>
      {(me: MeResponse) => {
        const org = me.orgs.find((candidate) => candidate.id === params.orgId);
        return <FocusLayout me={me}>{org ? <OrgBilling org={org} /> : <OrgNotFound />}</FocusLayout>;
      }}
    </RequireSignedIn>
  );
}
