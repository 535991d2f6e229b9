// The "Transactional mail" section of bench/RESULTS.md: medians over the runs, then each run.
import { batchEmailsMax } from "../../server/mail/sending/send-service.ts";
import { concurrentDeliveriesMax, emailsPerTenantPerPass } from "../../server/mail/sending/delivery-queue.ts";
import { fmt, median } from "../figures.ts";
import type { BenchSize, RunFigures } from "./run-once.ts";

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
const rate = (perSecond: number) => `${fmt(perSecond)}/s`;
const percent = (fraction: number) => `${fmt(100 * fraction, 1)}%`;

export function mailSection({ figures, size, command, machine, seconds }: { figures: RunFigures[]; size: BenchSize; command: string; machine: string; seconds: number }): string {
  const pick = (value: (run: RunFigures) => number) => median(figures.map(value));
  const emails = size.singles + size.batched;
  const perRun = figures.map(
    (run, at) =>
      `- run ${at + 1}: accepted ${rate(run.mail.single.emailsPerSecond)} single (floor ${rate(run.floor.single.emailsPerSecond)}; CPU ${fmt(run.mail.single.cpuUsPerEmail)} us/email, floor ${fmt(run.floor.single.cpuUsPerEmail)}), ` +
      `${rate(run.mail.batch.emailsPerSecond)} batched (floor ${rate(run.floor.batch.emailsPerSecond)}; CPU ${fmt(run.mail.batch.cpuUsPerEmail)} us/email, floor ${fmt(run.floor.batch.cpuUsPerEmail)}); ` +
      `delivered ${rate(run.mail.delivery.emailsPerSecond)} (${fmt(run.mail.delivery.seconds, 1)} s, CPU ${fmt(run.mail.delivery.cpuUsPerEmail)} us/email; ` +
      `sink: ${fmt(run.mail.delivery.sink.messages)} messages, ${fmt(run.mail.delivery.sink.signed)} signed, ${fmt(run.mail.delivery.sink.secure)} over TLS, ${fmt(run.mail.delivery.sink.connections)} connections), ` +
      `nodemailer ${rate(run.nodemailer.emailsPerSecond)} (${fmt(run.nodemailer.seconds, 1)} s, CPU ${fmt(run.nodemailer.cpuUsPerEmail)} us/email); ` +
      `RSS set up ${mib(run.mail.memory.setUpBytes)}, accepted ${mib(run.mail.memory.acceptedBytes)}, delivered ${mib(run.mail.memory.deliveredBytes)}, peak ${mib(run.mail.memory.peakBytes)}`,
  );
  return `## Transactional mail (bench/mail) — ${new Date().toISOString().slice(0, 10)}

${machine}
Command: \`${command}\` (${figures.length} run${figures.length === 1 ? "" : "s"}, ${fmt(seconds)} s in all, seed ${size.seed}); figures are medians over the runs.
Set-up: the mail API alone in its own process (startMail + Bun.serve on loopback, SQLite in a fresh directory, WAL; as \`npm start\` runs it; bench/mail/mail-process.ts), one tenant on the \`scale\` plan
with a verified sending domain (records in a local DNS server), the per-key rate limit lifted (\`MAIL_RATE_LIMIT_BURST\`, \`MAIL_RATE_LIMIT_PER_SECOND\`). Emails (bench/mail/requests.ts, seeded): from the
domain, one recipient of 1,000 at the sink's domain, a subject, 1.6-2.3 KB of HTML (a receipt), one tag. Requests are prepared bytes on keep-alive connections (bench/http-client.ts).
- Accepted: ${fmt(size.singles)} emails through \`POST /v1/emails\`, ${size.singlesInFlight} in flight, then ${fmt(size.batched)} through \`POST /v1/emails/batch\` (${batchEmailsMax} a request, ${size.batchesInFlight} in flight); from the first request to the last answer (200: stored, queued).
  Deliveries wait behind a gate meanwhile (the service's own \`deliver\`, held until the driver opens it), so accepting is measured alone.
  Baseline, the durable floor: a bare Bun server (bench/mail/floor-server.ts) that parses the same bodies and answers after one INSERT per request into a SQLite file opened as the mail store opens its own (Bun SQL, WAL), nothing else.
- Delivered: the ${fmt(emails)} accepted emails, by the service's own queue (passes of up to ${emailsPerTenantPerPass} emails per tenant, ${concurrentDeliveriesMax} SMTP sessions at once, an MX lookup, a connection and STARTTLS per email, DKIM rsa-sha256 with the domain's 2048-bit key)
  to a local SMTP sink (smtp-server in its own process, accepting everything, STARTTLS offered with a self-signed certificate; bench/mail/sink-process.ts); from opening the gate until the
  delivery pass that settled the last recipient returned (the driver runs \`deliverQueued()\` passes back to back until none waits). Checked: the sink received each email once
  (distinct Message-IDs), each with a DKIM-Signature first, and the store has every recipient delivered.
  Baseline: nodemailer alone in its own process (bench/mail/nodemailer-baseline.ts) sending the same ${fmt(emails)} emails, composed beforehand, to the same sink, ${concurrentDeliveriesMax} at once, a connection and STARTTLS per email, DKIM-signed by its \`dkim\` option with a 2048-bit key; no queue, no store, no DNS.
- Memory: the mail process's RSS (from /proc) once set up, after accepting, after delivering, and the highest read every 250 ms.

| measure | mail service | baseline | service / baseline (median of the runs' ratios) |
|---|---|---|---|
| accepted emails per second, \`POST /v1/emails\` | ${rate(pick((run) => run.mail.single.emailsPerSecond))} | ${rate(pick((run) => run.floor.single.emailsPerSecond))} (durable floor) | ${percent(pick((run) => run.mail.single.emailsPerSecond / run.floor.single.emailsPerSecond))} |
| accepted emails per second, \`POST /v1/emails/batch\` (${batchEmailsMax} a request) | ${rate(pick((run) => run.mail.batch.emailsPerSecond))} | ${rate(pick((run) => run.floor.batch.emailsPerSecond))} (durable floor) | ${percent(pick((run) => run.mail.batch.emailsPerSecond / run.floor.batch.emailsPerSecond))} |
| CPU per accepted email, single / batched (all threads) | ${fmt(pick((run) => run.mail.single.cpuUsPerEmail))} us / ${fmt(pick((run) => run.mail.batch.cpuUsPerEmail))} us | ${fmt(pick((run) => run.floor.single.cpuUsPerEmail))} us / ${fmt(pick((run) => run.floor.batch.cpuUsPerEmail))} us | - |
| delivered emails per second (DKIM-signed, to the sink) | ${rate(pick((run) => run.mail.delivery.emailsPerSecond))} | ${rate(pick((run) => run.nodemailer.emailsPerSecond))} (nodemailer, no queue) | ${percent(pick((run) => run.mail.delivery.emailsPerSecond / run.nodemailer.emailsPerSecond))} |
| CPU per delivered email (all threads) | ${fmt(pick((run) => run.mail.delivery.cpuUsPerEmail))} us | ${fmt(pick((run) => run.nodemailer.cpuUsPerEmail))} us | - |
| mail process RSS: set up / after accepting / after delivering / peak | ${mib(pick((run) => run.mail.memory.setUpBytes))} / ${mib(pick((run) => run.mail.memory.acceptedBytes))} / ${mib(pick((run) => run.mail.memory.deliveredBytes))} / ${mib(pick((run) => run.mail.memory.peakBytes))} | - | - |

What bounds these figures (measured 2026-11-27 with \`perf stat -e syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync -p <mail pid>\` per phase, and
\`BENCH_CPU_PROFILE_DIR\`): the store is SQLite in WAL mode with synchronous=FULL, Bun's SQL client runs every statement on the service's one JavaScript thread, and
every write is its own commit waiting for an fsync, during which nothing else runs (no request parsed, no SMTP reply read, no signature made).
- Accepting costs 4.05 fsyncs per email sent alone (the month's usage reserved, the recipients inserted, the email inserted, its \`email.sent\` event inserted; the floor: 1)
  and 1.06 per email in batches of 100 (EventStore.emit inserts each event in a statement of its own: 100 commits a batch, 3 for the rest). In the profile of 3,000
  single sends, 55% of the main thread's samples are inside SQLite statements (\`run\` 33%, \`all\` 21%, \`prepare\` 5%); the API key is also looked up three times a
  request (the rate-limit hook, onParse and derive each call MailAuth).
- Delivering costs 4.07 fsyncs per email (its attempt, its recipient settled, its status refreshed, its \`email.delivered\` event; a pass's claim is shared); the same
  thread meanwhile signs (RSA-2048, nodemailer's signer, the PEM key parsed twice per email), runs each SMTP session (nodemailer's SMTPConnection) and a TLS handshake
  per email: a new connection per email even when every email goes to the same MX.
- Composing the MIME message at accept time was 3 ms an email, 2.8 ms of it html-to-text compiling its options on every call; it is compiled once now (0.3 ms).
What would raise them (not done here): one INSERT for all of a request's events (a batch: 100 commits to 1); the writes of one accept in fewer statements, or a
writer that group-commits concurrent requests' writes in one transaction on a connection of its own (one fsync for many requests, as ingest's WAL does);
settling a delivery pass's recipients, attempts and events in a few multi-row statements instead of four per email; resolving the key once per request; keeping
SMTP sessions to an MX open across a pass's emails (RSET between them) instead of a connection and a TLS handshake each; a KeyObject per domain for DKIM.

Per run:
${perRun.join("\n")}
`;
}
