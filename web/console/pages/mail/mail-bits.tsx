// Small pieces the Mail tabs share: a status as a coloured badge, the API's codes in words
// (bounce classes, what was done, event types, suppression reasons), and a value with a
// button that copies it.
import { useRef, useState } from "preact/hooks";
import { CheckIcon, CopyIcon } from "../../ui/icons.tsx";

type Tone = "success" | "warning" | "danger" | "muted" | "accent";

const tones: Record<string, Tone> = {
  delivered: "success", verified: "success", partially_delivered: "warning", enabled: "success",
  queued: "accent", scheduled: "accent", pending: "accent", sent: "accent",
  deferred: "warning", not_found: "warning", temporary_error: "warning", manual: "muted",
  bounced: "danger", failed: "danger", complained: "danger", mismatch: "danger", hard_bounce: "danger", complaint: "danger",
  suppressed: "muted", cancelled: "muted", disabled: "muted",
};

/** A status the mail API names, in words ("partially_delivered" reads "partially delivered"), coloured by what it means. */
export function MailBadge({ status }: { status: string }) {
  return <span class={`badge badge-${tones[status] ?? "muted"}`}>{status.replaceAll("_", " ")}</span>;
}

/** What each bounce class means (docs/mail.md, server/mail/bounces/classify.ts). */
const bounceClassWords: Record<string, string> = {
  unknown_mailbox: "The recipient's mail server says this mailbox does not exist",
  mailbox_disabled: "The mailbox exists but is disabled or no longer in use",
  domain_not_found: "The domain does not exist or accepts no mail",
  mailbox_full: "The mailbox is full",
  message_too_large: "Larger than the recipient's server accepts",
  blocked_as_spam: "Refused as spam, or our sending IP is listed",
  policy: "Refused by policy: authentication, DMARC, SPF or access rules",
  rate_limited: "The server limits our connections or messages",
  temporary_server_error: "A temporary problem at the recipient's server",
  connection_failed: "No SMTP answer: the recipient's servers could not be reached",
  other_permanent: "Refused permanently, for no reason named",
  other_temporary: "Deferred, for no reason named",
};

export const bounceClassInWords = (bounceClass: string) => bounceClassWords[bounceClass] ?? bounceClass.replaceAll("_", " ");

const actionWords: Record<string, string> = {
  suppress: "the address is suppressed: nothing more is sent to it",
  retry: "it is retried later",
  none: "nothing more is done (the address is kept)",
};

export const bounceActionInWords = (action: string) => actionWords[action] ?? action;

const eventWords: Record<string, string> = {
  "email.scheduled": "Scheduled",
  "email.sent": "Sent",
  "email.delivered": "Delivered",
  "email.deferred": "Deferred",
  "email.bounced": "Bounced",
  "email.complained": "Complained",
  "email.failed": "Failed",
  "email.received": "Received",
  "domain.verified": "Domain verified",
  "domain.failed": "Domain failed",
};

export const eventInWords = (type: string) => eventWords[type] ?? type;

const reasonWords: Record<string, string> = { hard_bounce: "Hard bounce", complaint: "Complaint", manual: "Added by hand" };

export const reasonInWords = (reason: string) => reasonWords[reason] ?? reason;

/** How long "Copied" shows before the button reads "Copy" again. */
const copiedNoticeMs = 2_000;

/** A value shown as code, with a button that copies it (or selects it where the clipboard is refused). */
export function CopyValue({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "selected">("idle");
  const code = useRef<HTMLElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
      setTimeout(() => setState("idle"), copiedNoticeMs);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code.current!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setState("selected");
    }
  };
  return (
    <span class="copy-value">
      <code ref={code}>{value}</code>
      <button type="button" class="button button-ghost button-small" onClick={copy} aria-label={`Copy ${label}`}>
        {state === "copied" ? <CheckIcon /> : <CopyIcon />}
        <span aria-live="polite">{state === "copied" ? "Copied" : state === "selected" ? "Press Ctrl+C" : "Copy"}</span>
      </button>
    </span>
  );
}
