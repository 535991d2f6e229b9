// bench/mail in its short form: one run of a few emails through every part (the durable floor,
// the mail service accepting one by one and in a batch, its queue delivering to the sink, the
// nodemailer baseline) must deliver every email once, signed, over TLS, and give figures that
// are counts of what happened, not wall-clock promises.
import { expect, test } from "bun:test";
import { mailSection } from "../../bench/mail/report.ts";
import { sendBodies } from "../../bench/mail/requests.ts";
import { runOnce, type BenchSize } from "../../bench/mail/run-once.ts";

test("the same seed gives the same emails, each a realistic transactional send", () => {
  const bodies = sendBodies(7, 50);
  expect(sendBodies(7, 50)).toEqual(bodies);
  expect(sendBodies(8, 50)).not.toEqual(bodies);
  for (const [at, body] of bodies.entries()) {
    expect(body.to).toEqual([`customer${at}@bench-recipient.test`]);
    expect(body.tags).toEqual([{ name: "category", value: "receipt" }]);
    expect(body.html.length).toBeGreaterThan(1_500);
    expect(body.html.length).toBeLessThan(2_500);
  }
});

test("one short run delivers every accepted email once, DKIM-signed, and reports it", async () => {
  // 130 batched: a full batch of 100 and a partial one of 30.
  const size: BenchSize = { seed: 42, singles: 40, batched: 130, singlesInFlight: 8, batchesInFlight: 2 };
  const emails = size.singles + size.batched;
  const progress: string[] = [];
  const figures = await runOnce(size, (line) => progress.push(line));
  expect(progress.map((line) => line.split(" ")[0])).toEqual(["floor", "mail", "nodemailer"]);
  const { sink } = figures.mail.delivery;
  expect({ messages: sink.messages, recipients: sink.recipients, signed: sink.signed, secure: sink.secure, distinctMessageIds: sink.distinctMessageIds }).toEqual({
    messages: emails,
    recipients: emails,
    signed: emails,
    secure: emails,
    distinctMessageIds: emails,
  });
  // One SMTP session per email (a 16-session pass opens no more than it delivers).
  expect(sink.connections).toBe(emails);
  const rates = [figures.floor.single, figures.floor.batch, figures.mail.single, figures.mail.batch, figures.mail.delivery, figures.nodemailer].map((figure) => figure.emailsPerSecond);
  for (const rate of rates) expect(Number.isFinite(rate) && rate > 0).toBe(true);
  for (const bytes of Object.values(figures.mail.memory)) expect(bytes).toBeGreaterThan(0);
  const section = mailSection({ figures: [figures], size, command: "bun test", machine: "Machine: test", seconds: 1 });
  expect(section.startsWith("## Transactional mail (bench/mail) — ")).toBe(true);
  expect(section).toContain(`- run 1: accepted `);
  expect(section).toContain(`sink: ${emails} messages, ${emails} signed, ${emails} over TLS, ${emails} connections`);
}, 120_000);
