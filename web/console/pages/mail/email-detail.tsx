// One email: who it went to and where each recipient stands (the last answer of its server,
// the bounce class in words and what was done about it), every hop as a timeline, and each
// SMTP attempt with its conversation. A scheduled email can be moved or cancelled here.
import { useState } from "preact/hooks";
import { cancelEmail, readEmail, rescheduleEmail } from "../../api/mail-api.ts";
import type { MailEmail, MailEmailDetail, MailEvent, MailRecipient } from "../../api/mail-types.ts";
import { formatNumber } from "../../format/numbers.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { Fact } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { exactTime, Time } from "../messaging/messaging-bits.tsx";
import { bounceActionInWords, bounceClassInWords, eventInWords, MailBadge } from "./mail-bits.tsx";
import { AttemptCard } from "./smtp-transcript.tsx";

const list = (addresses: string[]) => (addresses.length ? addresses.join(", ") : "—");

function lastAnswer(recipient: MailRecipient): string {
  const answer = recipient.last_answer;
  if (!answer) return "—";
  const reply = [answer.code, answer.enhanced_code, answer.text].filter((part) => part !== null && part !== "").join(" ");
  return answer.mx_host ? `${reply} (${answer.mx_host})` : reply;
}

function Recipients({ recipients }: { recipients: MailRecipient[] }) {
  return (
    <DataTable
      caption="Recipients and where each stands"
      rows={recipients}
      rowKey={(recipient) => recipient.address}
      columns={[
        { label: "Recipient", cell: (recipient) => <span class="mail-address">{recipient.address}</span> },
        { label: "Status", cell: (recipient) => <MailBadge status={recipient.status} /> },
        { label: "Attempts", numeric: true, cell: (recipient) => recipient.attempts },
        { label: "Last answer", cell: (recipient) => <span class="mail-answer">{lastAnswer(recipient)}</span> },
        {
          label: "Bounce",
          cell: (recipient) =>
            recipient.bounce_class ? (
              <span class="mail-bounce">
                <span class="mail-bounce-class">{bounceClassInWords(recipient.bounce_class)}</span>
                {recipient.action && <span class="mail-bounce-action">Then {bounceActionInWords(recipient.action)}.</span>}
              </span>
            ) : (
              "—"
            ),
        },
        { label: "Next attempt", cell: (recipient) => <Time at={recipient.next_attempt_at} /> },
      ]}
    />
  );
}

/** What an event adds to its type: the reason a person reads (a bounce's), else the server's answer. */
function eventDetail(event: MailEvent): string | null {
  const { reason, smtp } = event.data;
  if (typeof reason === "string") return reason;
  if (smtp && typeof smtp === "object") {
    const { code, enhanced_code: enhanced, text } = smtp as Record<string, unknown>;
    const reply = [code, enhanced, text].filter((part) => typeof part === "string" || typeof part === "number").join(" ");
    return reply || null;
  }
  return null;
}

const eventTone = (type: string) =>
  type === "email.bounced" || type === "email.failed" || type === "email.complained" ? "timeline-failed" : type === "email.delivered" ? "timeline-done" : "";

function Timeline({ events }: { events: MailEvent[] }) {
  if (events.length === 0) return <p class="muted-note">No hop yet: the email has not left the queue.</p>;
  return (
    <ol class="mail-timeline" aria-label="Hops">
      {events.map((event) => {
        const detail = eventDetail(event);
        return (
          <li key={event.id} class={`mail-hop ${eventTone(event.type)}`}>
            <span class="timeline-label">{eventInWords(event.type)}</span>
            <span class="timeline-time">{exactTime(event.created_at)}</span>
            {event.recipient && <span class="mail-address">{event.recipient}</span>}
            {detail && <span class="mail-hop-detail">{detail}</span>}
          </li>
        );
      })}
    </ol>
  );
}

/** An RFC 3339 time as a datetime-local field's value (the person's own clock, to the minute). */
function localInputValue(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function ScheduledControls({ apiKey, email, onChanged }: { apiKey: string; email: MailEmail; onChanged(email: MailEmail, notice: string): void }) {
  const reschedule = useFormAction(async (fields) => {
    const local = fieldText(fields, "scheduled_at");
    if (!local) throw new Error("choose the new date and time first");
    const changed = await rescheduleEmail(apiKey, email.id, new Date(local).toISOString());
    onChanged(changed, `The email now goes ${exactTime(changed.scheduled_at!)}.`);
  });
  const [confirming, setConfirming] = useState(false);
  const cancel = useAction(async () => {
    const changed = await cancelEmail(apiKey, email.id);
    setConfirming(false);
    onChanged(changed, "The email is cancelled: it will not be sent, and its recipients no longer count towards this month.");
  });
  return (
    <section class="mail-scheduled" aria-label="Scheduled sending">
      <form class="form inline-form" onSubmit={reschedule.onSubmit}>
        <TextField label="Send at" name="scheduled_at" type="datetime-local" required defaultValue={localInputValue(email.scheduled_at!)} hint="Your own clock; at most 30 days ahead." />
        <Button type="submit" busy={reschedule.busy}>Reschedule</Button>
        <Button type="button" variant="danger" onClick={() => { cancel.reset(); setConfirming(true); }}>Cancel email</Button>
      </form>
      <FormError error={reschedule.error} />
      {confirming && (
        <div class="mail-confirm" role="group" aria-label="Cancel this email?">
          <p>Cancel this email? It will not be sent to anyone; this cannot be undone.</p>
          <FormError error={cancel.error} />
          <Button small onClick={() => setConfirming(false)}>Keep it</Button>
          <Button small variant="danger" busy={cancel.busy} onClick={() => void cancel.run()}>Cancel the email</Button>
        </div>
      )}
    </section>
  );
}

export function EmailDetail({ apiKey, emailId, onClose, onChanged }: { apiKey: string; emailId: string; onClose(): void; onChanged(email: MailEmail): void }) {
  const [detail, reload] = useResource(() => readEmail(apiKey, emailId), [apiKey, emailId]);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (email: MailEmail, text: string) => {
    setNotice(text);
    onChanged(email);
    reload();
  };
  return (
    <Dialog
      open
      wide
      title="Email"
      onClose={onClose}
      footer={
        <>
          <Button onClick={reload}>Refresh</Button>
          <Button variant="primary" onClick={onClose}>Close</Button>
        </>
      }
    >
      {notice && <Alert tone="success">{notice}</Alert>}
      {detail.status === "loading" && <LoadingState label="Loading the email…" />}
      {detail.status === "failed" && <ErrorState title="The email could not be loaded" error={detail.error} onRetry={reload} />}
      {detail.status === "ready" && <EmailBody apiKey={apiKey} email={detail.data} onChanged={changed} />}
    </Dialog>
  );
}

function EmailBody({ apiKey, email, onChanged }: { apiKey: string; email: MailEmailDetail; onChanged(email: MailEmail, notice: string): void }) {
  return (
    <div class="message-detail mail-detail">
      <dl class="facts">
        <Fact term="Subject" wide><span class="message-text">{email.subject}</span></Fact>
        <Fact term="From"><span class="mail-address">{email.from}</span></Fact>
        <Fact term="Status"><MailBadge status={email.status} /></Fact>
        <Fact term="To"><span class="mail-address">{list(email.to)}</span></Fact>
        <Fact term="Cc"><span class="mail-address">{list(email.cc)}</span></Fact>
        <Fact term="Bcc"><span class="mail-address">{list(email.bcc)}</span></Fact>
        <Fact term="Reply-To"><span class="mail-address">{list(email.reply_to)}</span></Fact>
        <Fact term="Created">{exactTime(email.created_at)}</Fact>
        <Fact term="Scheduled for">{email.scheduled_at ? exactTime(email.scheduled_at) : "—"}</Fact>
        <Fact term="Size">{formatNumber(email.size_bytes)} bytes</Fact>
        <Fact term="Tags">{email.tags.length ? email.tags.map((tag) => `${tag.name}:${tag.value}`).join(", ") : "—"}</Fact>
        <Fact term="Message-ID" wide><code>{email.message_id}</code></Fact>
      </dl>
      {email.status === "scheduled" && email.scheduled_at && <ScheduledControls apiKey={apiKey} email={email} onChanged={onChanged} />}
      <h3 class="section-subtitle">Recipients</h3>
      <Recipients recipients={email.recipients} />
      <h3 class="section-subtitle">Hops</h3>
      <Timeline events={email.events} />
      <h3 class="section-subtitle">Delivery attempts</h3>
      {email.attempts.length === 0 ? (
        <p class="muted-note">No attempt yet.</p>
      ) : (
        email.attempts.map((attempt, index) => <AttemptCard key={attempt.id} attempt={attempt} index={index} />)
      )}
    </div>
  );
}
