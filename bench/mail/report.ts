// The "Transactional mail" section of bench/RESULTS.md: medians over the runs, then each run.
import { cpus, totalmem } from "node:os";
import { batchEmailsMax } from "../../server/mail/sending/send-service.ts";
import { concurrentDeliveriesMax, recipientsPerTenantPerPass } from "../../server/mail/sending/delivery-queue.ts";
import { fmt, median } from "../figures.ts";
import type { BenchSize, RunFigures } from "./run-once.ts";

export function machineLine(loadAtStart: number, loadAtEnd: number): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return `Machine: ${cpus().length} cores (${cpu}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; the driver (with the DNS server), the SMTP sink, the baselines and the mail service share the machine (load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadAtEnd, 1)} when it ended).`;
}

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
      `delivered ${rate(run.mail.delivery.emailsPerSecond)} (${fmt(run.mail.delivery.seconds, 1)} s, ${run.mail.delivery.passes} passes, CPU ${fmt(run.mail.delivery.cpuUsPerEmail)} us/email; ` +
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
- Delivered: the ${fmt(emails)} accepted emails, by the service's own queue (passes of up to ${recipientsPerTenantPerPass} recipients per tenant, ${concurrentDeliveriesMax} SMTP sessions at once, an MX lookup, a connection and STARTTLS per email, DKIM rsa-sha256 with the domain's 2048-bit key)
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

Per run:
${perRun.join("\n")}
`;
}
