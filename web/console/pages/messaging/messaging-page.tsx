// "Messaging" (/messaging): the messaging gateway's pages. The gateway knows nothing of the
// console's organisations and projects (its projects and keys are its own), so the page sits
// outside any project, like the account pages: the person connects the tab with a gateway
// key, and sees a project's numbers, pool, messages and deliveries (a project key) or the
// gateway's operations (the root key). The tab is in the URL (`?tab=`), so it can be linked.
import { useLocation } from "preact-iso";
import { FocusLayout } from "../../layouts/focus-layout.tsx";
import { RequireSignedIn } from "../../layouts/guards.tsx";
import { paths } from "../../paths.ts";
import { gatewayConnection } from "../../state/gateway-key.ts";
import { PageTitle } from "../../ui/page-title.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { ConnectedBar, ConnectForm } from "./connect-form.tsx";
import { DeliveriesTable } from "./deliveries-table.tsx";
import { MessagesTab } from "./messages-tab.tsx";
import { NumbersTab } from "./numbers-tab.tsx";
import { OperationsView } from "./operations-view.tsx";
import { PoolTab } from "./pool-tab.tsx";

const messagingTabs = [
  { id: "numbers", label: "Numbers" },
  { id: "pool", label: "Pool & usage" },
  { id: "messages", label: "Messages" },
  { id: "deliveries", label: "Deliveries" },
] as const;

type MessagingTab = (typeof messagingTabs)[number]["id"];

function ProjectViews({ apiKey }: { apiKey: string }) {
  const { query, route } = useLocation();
  const selected = messagingTabs.find((tab) => tab.id === query.tab)?.id ?? "numbers";
  return (
    <Tabs label="Messaging" tabs={messagingTabs} selected={selected} onSelect={(tab) => route(paths.messaging(tab as MessagingTab), true)}>
      {selected === "numbers" && <NumbersTab apiKey={apiKey} />}
      {selected === "pool" && <PoolTab apiKey={apiKey} />}
      {selected === "messages" && <MessagesTab apiKey={apiKey} />}
      {selected === "deliveries" && <DeliveriesTable apiKey={apiKey} scope="project" />}
    </Tabs>
  );
}

function Messaging() {
  const connection = gatewayConnection.value;
  return (
    <div class="page settings-page messaging-page">
      <PageTitle title="Messaging">
        The messaging gateway: numbers paired by QR code, messages sent through their pool, and inbound messages delivered to a webhook.
      </PageTitle>
      {connection === null ? (
        <ConnectForm />
      ) : (
        <>
          <ConnectedBar connection={connection} />
          {connection.kind === "project" ? <ProjectViews key={connection.key} apiKey={connection.key} /> : <OperationsView key={connection.key} apiKey={connection.key} />}
        </>
      )}
    </div>
  );
}

export default function MessagingPage() {
  return <RequireSignedIn>{(me) => <FocusLayout me={me}><Messaging /></FocusLayout>}</RequireSignedIn>;
}
