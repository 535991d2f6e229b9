// The tenant's suppression list: addresses nothing is sent to any more, listed by reason (a
// hard bounce or a complaint adds one on its own; the tenant adds others by hand), and removing
// one after a confirmation, so mail goes to it again.
import { useRef, useState } from "preact/hooks";
import { addSuppression, listSuppressions, removeSuppression } from "../../api/mail-api.ts";
import { suppressionReasons, type MailSuppression, type SuppressionReason } from "../../api/mail-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { CheckIcon, PlusIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { Time } from "../messaging/messaging-bits.tsx";
import { bounceClassInWords, MailBadge, reasonInWords } from "./mail-bits.tsx";

/** The API's own limits (server/mail/routes/suppressions.ts, sending/suppressions-service.ts). */
const addressLengthMax = 254;
const detailLengthMax = 500;

function AddForm({ apiKey, onAdded }: { apiKey: string; onAdded(entry: MailSuppression): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => {
    const entry = await addSuppression(apiKey, fieldText(fields, "address").trim(), fieldText(fields, "detail").trim() || null);
    formRef.current?.reset();
    onAdded(entry);
  });
  return (
    <form ref={formRef} class="form settings-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <div class="inline-form">
        <TextField label="Address" name="address" required maxLength={addressLengthMax} placeholder="someone@example.com" autoComplete="off" spellcheck={false} />
        <TextField label="Note" name="detail" maxLength={detailLengthMax} placeholder="Asked to stop by phone" />
        <Button type="submit" variant="primary" busy={form.busy}>
          <PlusIcon /> Suppress
        </Button>
      </div>
    </form>
  );
}

function RemoveDialog({ apiKey, entry, onClose, onRemoved }: { apiKey: string; entry: MailSuppression; onClose(): void; onRemoved(entry: MailSuppression): void }) {
  const remove = useAction(async () => {
    await removeSuppression(apiKey, entry.address);
    onRemoved(entry);
  });
  return (
    <ConfirmDialog open title="Remove this address from the list?" confirmLabel="Remove" danger busy={remove.busy} onConfirm={() => void remove.run()} onClose={onClose}>
      <FormError error={remove.error} />
      <p>
        Emails to <strong class="mail-address">{entry.address}</strong> will be sent again.
        {entry.reason === "hard_bounce" && " Its server refused it for good: sending again may bounce again, which harms your domain's reputation."}
        {entry.reason === "complaint" && " Its owner reported your mail as spam: send to it again only if they asked you to."}
      </p>
    </ConfirmDialog>
  );
}

export function SuppressionsTab({ apiKey }: { apiKey: string }) {
  const [reason, setReason] = useState<SuppressionReason | "">("");
  const entries = usePagedList((cursor) => listSuppressions(apiKey, reason || null, cursor), [apiKey, reason]);
  const [removing, setRemoving] = useState<MailSuppression | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { list } = entries;
  return (
    <>
      <SettingsSection id="suppress" title="Suppress an address" description="Nothing is sent to a suppressed address: a send that names it skips it. Hard bounces and complaints add addresses on their own.">
        <AddForm
          apiKey={apiKey}
          onAdded={(entry) => {
            if (reason === "" || reason === entry.reason) entries.update((items) => [entry, ...items.filter((item) => item.address !== entry.address)]);
            setNotice(`${entry.address} is suppressed.`);
          }}
        />
      </SettingsSection>
      <section class="card table-card" aria-labelledby="suppressions-title">
        <RefreshToolbar title="Suppressed addresses" titleId="suppressions-title" onRefresh={entries.reload}>
          <SelectField label="Reason" name="reason" value={reason} onChange={(change) => setReason(change.currentTarget.value as SuppressionReason | "")}>
            <option value="">Every reason</option>
            {suppressionReasons.map((name) => <option key={name} value={name}>{reasonInWords(name)}</option>)}
          </SelectField>
        </RefreshToolbar>
        {notice && <Alert tone="success">{notice}</Alert>}
        {list.status === "loading" && <LoadingState label="Loading the suppression list…" />}
        {list.status === "failed" && <ErrorState title="The suppression list could not be loaded" error={list.error} onRetry={entries.reload} />}
        {list.status === "ready" && (
          <DataTable
            caption="Suppressed addresses, newest first"
            rows={list.items}
            rowKey={(entry) => entry.address}
            empty={
              <EmptyState icon={<CheckIcon size={20} />} title={reason === "" ? "No suppressed addresses" : `No addresses suppressed for “${reasonInWords(reason).toLowerCase()}”`}>
                {reason === "" ? "Every address can be sent to. Addresses that bounce hard or complain are added here on their own." : "Choose another reason to see more."}
              </EmptyState>
            }
            columns={[
              { label: "Address", cell: (entry) => <span class="mail-address text-strong">{entry.address}</span> },
              { label: "Reason", cell: (entry) => <MailBadge status={entry.reason} /> },
              { label: "Why", cell: (entry) => <span class="mail-answer">{[entry.bounce_class && bounceClassInWords(entry.bounce_class), entry.detail].filter(Boolean).join(": ") || "—"}</span> },
              { label: "Added", cell: (entry) => <Time at={entry.created_at} /> },
              {
                label: "Actions",
                actions: true,
                cell: (entry) => (
                  <Button small variant="ghost" aria-label={`Remove ${entry.address}`} onClick={() => { setNotice(null); setRemoving(entry); }}>Remove</Button>
                ),
              },
            ]}
          />
        )}
        <LoadMore controls={entries} />
      </section>
      {removing && (
        <RemoveDialog
          apiKey={apiKey}
          entry={removing}
          onClose={() => setRemoving(null)}
          onRemoved={(entry) => {
            entries.update((items) => items.filter((item) => item.address !== entry.address));
            setNotice(`${entry.address} is no longer suppressed: emails to it are sent again.`);
            setRemoving(null);
          }}
        />
      )}
    </>
  );
}
