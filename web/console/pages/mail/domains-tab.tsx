// The tenant's sending domains: add one, then publish the DNS records it answers (each value
// with a copy button) and "Verify now" asks DNS at once; each record shows what DNS answered.
import { useRef, useState } from "preact/hooks";
import { addDomain, listDomains, verifyDomain } from "../../api/mail-api.ts";
import type { DomainRecord, MailDomain } from "../../api/mail-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PlusIcon, RefreshIcon } from "../../ui/icons.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { Time } from "../messaging/messaging-bits.tsx";
import { CopyValue, MailBadge } from "./mail-bits.tsx";

/** The API's own limit on a domain name (server/mail/domains/domains-service.ts). */
const domainNameLengthMax = 253;

const recordPurpose: Record<DomainRecord["record"], string> = {
  DKIM: "DKIM: signs what you send",
  MX: "Return path: bounces come back to us",
  SPF: "SPF of the return path",
  RECEIVING_MX: "Receiving: mail to the domain comes to us",
  DMARC: "DMARC (suggested)",
};

const statusMeaning: Record<MailDomain["status"], string> = {
  pending: "Publish the records below at your DNS provider, then Verify now. Checks also run on their own.",
  verified: "Every required record is published: the domain can send.",
  failed: "A required record is missing or wrong. Publish the records below again, then Verify now.",
};

function AddDomainForm({ apiKey, onAdded }: { apiKey: string; onAdded(domain: MailDomain): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => {
    const domain = await addDomain(apiKey, fieldText(fields, "domain").trim(), fields.get("receiving") === "on");
    formRef.current?.reset();
    onAdded(domain);
  });
  return (
    <form ref={formRef} class="form settings-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <div class="inline-form">
        <TextField label="Domain" name="domain" required maxLength={domainNameLengthMax} placeholder="send.example.com" autoComplete="off" spellcheck={false} />
        <label class="checkbox">
          <input type="checkbox" name="receiving" /> Receive mail at this domain too
        </label>
        <Button type="submit" variant="primary" busy={form.busy}>
          <PlusIcon /> Add domain
        </Button>
      </div>
    </form>
  );
}

function RecordsTable({ domain }: { domain: MailDomain }) {
  return (
    <DataTable
      caption={`DNS records to publish for ${domain.name}`}
      rows={domain.records}
      rowKey={(record) => `${record.record}-${record.name}`}
      columns={[
        { label: "Record", cell: (record) => <span class="mail-record-purpose">{recordPurpose[record.record] ?? record.record}</span> },
        { label: "Type", cell: (record) => <code>{record.type}</code> },
        { label: "Name", cell: (record) => <CopyValue value={record.name} label={`${record.record} name`} /> },
        { label: "Value", cell: (record) => <CopyValue value={record.value} label={`${record.record} value`} /> },
        { label: "Priority", numeric: true, cell: (record) => record.priority ?? "—" },
        { label: "Status", cell: (record) => <MailBadge status={record.status} /> },
        {
          label: "DNS answered",
          // A verified record answered its own value; what DNS answered matters when it differs.
          cell: (record) => (record.status === "verified" ? "the value" : record.found.length ? <span class="mail-found">{record.found.join("\n")}</span> : "—"),
        },
      ]}
    />
  );
}

function DomainCard({ apiKey, domain, onChanged }: { apiKey: string; domain: MailDomain; onChanged(domain: MailDomain): void }) {
  const [notice, setNotice] = useState<string | null>(null);
  const verify = useAction(async () => {
    setNotice(null);
    const checked = await verifyDomain(apiKey, domain.id);
    onChanged(checked);
    setNotice(checked.status === "verified" ? `${checked.name} is verified: it can send.` : `${checked.name} is ${checked.status}: DNS does not show every required record yet.`);
  });
  return (
    <section class="card table-card mail-domain" aria-label={domain.name}>
      <div class="gateway-toolbar">
        <h3 class="section-subtitle mail-domain-name">{domain.name}</h3>
        <MailBadge status={domain.status} />
        {domain.receiving && <span class="badge badge-accent">receiving</span>}
        <span class="muted-note">Checked <Time at={domain.checked_at} empty="never" /></span>
        <Button small variant="primary" busy={verify.busy} onClick={() => void verify.run()} aria-label={`Verify ${domain.name} now`}>
          <RefreshIcon /> Verify now
        </Button>
      </div>
      <p class="mail-domain-meaning">{statusMeaning[domain.status]}</p>
      {domain.failure && <Alert tone={domain.status === "failed" ? "error" : "info"}>{domain.failure}</Alert>}
      {notice && <Alert tone={domain.status === "verified" ? "success" : "info"}>{notice}</Alert>}
      <FormError error={verify.error} />
      <RecordsTable domain={domain} />
    </section>
  );
}

export function DomainsTab({ apiKey }: { apiKey: string }) {
  const [domains, reload] = useResource(() => listDomains(apiKey), [apiKey]);
  const [added, setAdded] = useState<MailDomain[]>([]);
  const [changed, setChanged] = useState<Map<string, MailDomain>>(new Map());
  const shown = domains.status === "ready" ? [...added.filter((domain) => !domains.data.some((known) => known.id === domain.id)), ...domains.data].map((domain) => changed.get(domain.id) ?? domain) : [];
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <SettingsSection id="add-domain" title="Add a domain" description="Emails are sent from a domain you own, once its DNS records are published: add it here to get them. A subdomain (send.example.com) keeps your main domain's mail apart.">
        {notice && <Alert tone="success">{notice}</Alert>}
        <AddDomainForm
          apiKey={apiKey}
          onAdded={(domain) => {
            setAdded((items) => [domain, ...items]);
            setNotice(`${domain.name} is added. Publish its records below, then Verify now.`);
          }}
        />
      </SettingsSection>
      <RefreshToolbar title="Domains" onRefresh={() => { setAdded([]); setChanged(new Map()); reload(); }} />
      {domains.status === "loading" && <LoadingState label="Loading the domains…" />}
      {domains.status === "failed" && <ErrorState title="The domains could not be loaded" error={domains.error} onRetry={reload} />}
      {domains.status === "ready" && shown.length === 0 && (
        <EmptyState icon={<PlusIcon size={20} />} title="No domains yet">Add the domain you send from above; its DNS records appear here.</EmptyState>
      )}
      {shown.map((domain) => (
        <DomainCard key={domain.id} apiKey={apiKey} domain={domain} onChanged={(checked) => setChanged((map) => new Map(map).set(checked.id, checked))} />
      ))}
    </>
  );
}
