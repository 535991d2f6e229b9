// Mail received at the tenant's receiving domains, newest first: who sent it, to whom, and
// whether SPF and DKIM passed. Everything in it came from the internet: shown as text.
import { listInbound } from "../../api/mail-api.ts";
import { formatNumber } from "../../format/numbers.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { MailIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { Time } from "../messaging/messaging-bits.tsx";

/** mailauth's result (pass, fail, softfail, none, temperror, …) as it says it, green only when it passed. */
function AuthBadge({ result }: { result: string }) {
  const tone = result === "pass" ? "success" : result === "none" || result === "neutral" ? "muted" : "danger";
  return <span class={`badge badge-${tone}`}>{result}</span>;
}

export function ReceivedTab({ apiKey }: { apiKey: string }) {
  const received = usePagedList((cursor) => listInbound(apiKey, cursor), [apiKey]);
  const { list } = received;
  return (
    <section class="card table-card" aria-labelledby="received-title">
      <RefreshToolbar title="Received mail" titleId="received-title" onRefresh={received.reload} />
      {list.status === "loading" && <LoadingState label="Loading the received mail…" />}
      {list.status === "failed" && <ErrorState title="The received mail could not be loaded" error={list.error} onRetry={received.reload} />}
      {list.status === "ready" && (
        <DataTable
          caption="Received mail, newest first"
          rows={list.items}
          rowKey={(email) => email.email_id}
          empty={<EmptyState icon={<MailIcon size={20} />} title="No mail received yet">Turn receiving on for a verified domain (Domains tab) and publish its MX record: mail sent to it is listed here.</EmptyState>}
          columns={[
            { label: "Received", cell: (email) => <Time at={email.created_at} /> },
            { label: "From", cell: (email) => <span class="mail-address">{email.from}</span> },
            { label: "To", cell: (email) => <span class="mail-address">{email.to.join(", ")}</span> },
            { label: "Subject", cell: (email) => <span class="message-preview">{email.subject}</span> },
            { label: "SPF", cell: (email) => <AuthBadge result={email.spf} /> },
            { label: "DKIM", cell: (email) => <AuthBadge result={email.dkim} /> },
            { label: "Size", numeric: true, cell: (email) => `${formatNumber(email.size)} B` },
          ]}
        />
      )}
      <LoadMore controls={received} />
    </section>
  );
}
