// The tenant's emails: a search (recipient, status, Message-ID, tag, created between) read a
// page at a time, newest first, and one email's detail. The list reads itself again while an
// email is still on its way.
import { useRef, useState } from "preact/hooks";
import { searchEmails } from "../../api/mail-api.ts";
import { emailStatuses, type EmailSearch, type EmailStatus, type MailEmail } from "../../api/mail-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { MailIcon, SearchOffIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { mergeFresh, Time, useRefreshWhile } from "../messaging/messaging-bits.tsx";
import { EmailDetail } from "./email-detail.tsx";
import { MailBadge } from "./mail-bits.tsx";

const movingStatuses: ReadonlySet<EmailStatus> = new Set(["queued", "deferred"]);

/** A datetime-local field's value (local time, no zone) as RFC 3339, or nothing when empty. */
const localTime = (value: string) => (value ? new Date(value).toISOString() : undefined);

function searchFrom(fields: FormData): EmailSearch {
  const search: EmailSearch = {
    recipient: fieldText(fields, "recipient").trim() || undefined,
    status: (fieldText(fields, "status") || undefined) as EmailStatus | undefined,
    message_id: fieldText(fields, "message_id").trim() || undefined,
    tag: fieldText(fields, "tag").trim() || undefined,
    created_after: localTime(fieldText(fields, "created_after")),
    created_before: localTime(fieldText(fields, "created_before")),
  };
  return Object.fromEntries(Object.entries(search).filter(([, value]) => value !== undefined));
}

function SearchForm({ onSearch }: { onSearch(search: EmailSearch): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => onSearch(searchFrom(fields)));
  const clear = () => {
    formRef.current?.reset();
    onSearch({});
  };
  return (
    <form ref={formRef} class="form mail-search" onSubmit={form.onSubmit} aria-label="Search emails">
      <FormError error={form.error} />
      <div class="mail-search-fields">
        <TextField label="Recipient" name="recipient" type="search" placeholder="ana@example.com" autoComplete="off" />
        <SelectField label="Status" name="status">
          <option value="">Every status</option>
          {emailStatuses.map((status) => <option key={status} value={status}>{status.replaceAll("_", " ")}</option>)}
        </SelectField>
        <TextField label="Tag" name="tag" placeholder="category:receipt" autoComplete="off" />
        <TextField label="Message-ID" name="message_id" placeholder="<id@send.example.com>" autoComplete="off" />
        <TextField label="Created after" name="created_after" type="datetime-local" />
        <TextField label="Created before" name="created_before" type="datetime-local" />
      </div>
      <div class="form-actions">
        <Button type="button" variant="ghost" onClick={clear}>Clear</Button>
        <Button type="submit" variant="primary">Search</Button>
      </div>
    </form>
  );
}

export function EmailsTab({ apiKey }: { apiKey: string }) {
  const [search, setSearch] = useState<EmailSearch>({});
  const searchKey = JSON.stringify(search);
  const emails = usePagedList((cursor) => searchEmails(apiKey, search, cursor), [apiKey, searchKey]);
  const [openId, setOpenId] = useState<string | null>(null);
  const { list, update } = emails;
  const shownSearch = useRef(searchKey);
  shownSearch.current = searchKey;
  useRefreshWhile(list.status === "ready" && list.items.some((email) => movingStatuses.has(email.status)), () => {
    const asked = searchKey;
    searchEmails(apiKey, search, null).then(
      (page) => shownSearch.current === asked && update((items) => mergeFresh(items, page.results)),
      // A failed background read changes nothing shown; the next one, or Refresh, tries again.
      () => undefined,
    );
  });
  const searching = searchKey !== "{}";
  const replace = (changed: MailEmail) => update((items) => items.map((item) => (item.id === changed.id ? changed : item)));
  return (
    <>
      <section class="card table-card" aria-labelledby="emails-title">
        <RefreshToolbar title="Emails" titleId="emails-title" onRefresh={emails.reload} />
        <SearchForm onSearch={setSearch} />
        {list.status === "loading" && <LoadingState label="Loading the emails…" />}
        {list.status === "failed" && <ErrorState title="The emails could not be loaded" error={list.error} onRetry={emails.reload} />}
        {list.status === "ready" && (
          <DataTable
            caption="Emails, newest first"
            rows={list.items}
            rowKey={(email) => email.id}
            onRowClick={(email) => setOpenId(email.id)}
            empty={
              searching ? (
                <EmptyState icon={<SearchOffIcon size={20} />} title="No email matches this search">Change the search, or Clear it to see every email.</EmptyState>
              ) : (
                <EmptyState icon={<MailIcon size={20} />} title="No emails yet">
                  Emails sent with this tenant's keys (POST /mail/v1/emails) are listed here, newest first. Add and verify a domain on the Domains tab to send from it.
                </EmptyState>
              )
            }
            columns={[
              { label: "Created", cell: (email) => <Time at={email.created_at} /> },
              { label: "From", cell: (email) => <span class="mail-address">{email.from}</span> },
              { label: "To", cell: (email) => <span class="mail-address">{email.to.join(", ")}</span> },
              { label: "Subject", cell: (email) => <span class="message-preview">{email.subject}</span> },
              { label: "Status", cell: (email) => <MailBadge status={email.status} /> },
            ]}
          />
        )}
        <LoadMore controls={emails} />
      </section>
      {openId && <EmailDetail apiKey={apiKey} emailId={openId} onClose={() => setOpenId(null)} onChanged={replace} />}
    </>
  );
}
