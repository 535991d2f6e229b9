// "Mail" (/email): the transactional-mail API's pages. The API knows nothing of the console's
// organisations and projects (its tenants and keys are its own), so the page sits outside any
// project, like Messaging: the person connects the tab with a full-access key of a tenant and
// sees its emails, domains, suppressions, webhooks, received mail and usage. The tab is in the
// URL (`?tab=`), so it can be linked. The path is not /mail: that prefix is the API's.
import { useLocation } from "preact-iso";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { mailKey } from "../../state/mail-key.ts";
import { PageTitle } from "../../ui/page-title.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { MailConnectedBar, MailConnectForm } from "./connect-form.tsx";
import { DomainsTab } from "./domains-tab.tsx";
import { EmailsTab } from "./emails-tab.tsx";
import { ReceivedTab } from "./received-tab.tsx";
import { SuppressionsTab } from "./suppressions-tab.tsx";
import { UsageTab } from "./usage-tab.tsx";
import { WebhooksTab } from "./webhooks-tab.tsx";

const mailTabs = [
  { id: "emails", label: "Emails" },
  { id: "domains", label: "Domains" },
  { id: "suppressions", label: "Suppressions" },
  { id: "webhooks", label: "Webhooks" },
  { id: "received", label: "Received" },
  { id: "usage", label: "Usage" },
] as const;

type MailTab = (typeof mailTabs)[number]["id"];

function TenantViews({ apiKey }: { apiKey: string }) {
  const { query, route } = useLocation();
  const selected = mailTabs.find((tab) => tab.id === query.tab)?.id ?? "emails";
  return (
    <Tabs label="Mail" tabs={mailTabs} selected={selected} onSelect={(tab) => route(paths.email(tab as MailTab), true)}>
      {selected === "emails" && <EmailsTab apiKey={apiKey} />}
      {selected === "domains" && <DomainsTab apiKey={apiKey} />}
      {selected === "suppressions" && <SuppressionsTab apiKey={apiKey} />}
      {selected === "webhooks" && <WebhooksTab apiKey={apiKey} />}
      {selected === "received" && <ReceivedTab apiKey={apiKey} />}
      {selected === "usage" && <UsageTab apiKey={apiKey} />}
    </Tabs>
  );
}

function Mail() {
  const key = mailKey.value;
  return (
    <div class="page settings-page messaging-page mail-page">
      <PageTitle title="Mail">
        The transactional-mail API: sending domains and their DNS records, every email with its hops and SMTP conversations, suppressions and webhooks.
      </PageTitle>
      {key === null ? (
        <MailConnectForm />
      ) : (
        <>
          <MailConnectedBar apiKey={key} />
          <TenantViews key={key} apiKey={key} />
        </>
      )}
    </div>
  );
}

export default function MailPage() {
  return <RequireSignedIn>{(me) => <FocusLayout me={me}><Mail /></FocusLayout>}</RequireSignedIn>;
}
