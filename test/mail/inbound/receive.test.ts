// Mail for a receiving domain, sent by nodemailer as a remote MTA would: stored once per tenant
// with its parsed fields, its DKIM and SPF results and its bytes as they arrived, announced as
// `email.received`, and served by the /v1/inbound routes (only to its tenant). Hostile header
// values come back as inert text.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { startTestMail, type TestMail } from "../harness.ts";
import { addDomain, sendInbound } from "./fixture.ts";

let mail: TestMail;
let acme: { id: string; key: string };
let other: { id: string; key: string };
let acmeDomain: { id: string };
let otherDomain: { id: string };
beforeAll(async () => {
  mail = await startTestMail();
  acme = await mail.tenant("Acme");
  other = await mail.tenant("Other");
  acmeDomain = await addDomain(mail, acme.key, "in.acme-example.com", { receiving: true });
  otherDomain = await addDomain(mail, other.key, "other-example.net", { receiving: true });
});
afterAll(async () => {
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const inboundId = expect.stringMatching(/^inb_[0-9a-f]{32}$/);

async function compose(options: Mail.Options): Promise<Buffer> {
  return new MailComposer(options).compile().build();
}

const receivedEvents = async (tenantId: string): Promise<{ domainId: string; data: Record<string, unknown> }[]> =>
  (await mail.mail.ctx.database.sql`SELECT * FROM mail_events WHERE tenant_id = ${tenantId} AND type = 'email.received' ORDER BY created_at, id`).map(
    (row: { data: string; domain_id: string }) => ({ domainId: row.domain_id, data: JSON.parse(row.data) }),
  );

test("a message is stored with its fields, attachments and bytes, announced as email.received, and listed", async () => {
  const pdf = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 7) % 256));
  const raw = await compose({
    from: '"Jane Doe" <jane@sender-example.org>',
    to: "Support <support@in.acme-example.com>",
    cc: "copy@sender-example.org",
    subject: "Order 42 — question",
    messageId: "<q42@sender-example.org>",
    text: "Where is my order?",
    html: "<p>Where is my <b>order</b>?</p>",
    attachments: [
      { filename: "invoice.pdf", content: pdf, contentType: "application/pdf" },
      { filename: "logo.png", content: Buffer.from("89504e470d0a1a0a", "hex"), contentType: "image/png", cid: "logo@sender" },
    ],
  });
  const info = await sendInbound(mail, { envelope: { from: "jane@sender-example.org", to: ["support@in.acme-example.com", "sales@IN.acme-example.com"] }, raw });
  expect([info.accepted, info.rejected]).toEqual([["support@in.acme-example.com", "sales@in.acme-example.com"], []]);

  const listed = await mail.call("GET", "/v1/inbound", { key: acme.key });
  expect(listed.status).toBe(200);
  const id = listed.body.data[0].email_id as string;
  const summary = {
    email_id: inboundId,
    created_at: iso,
    from: '"Jane Doe" <jane@sender-example.org>',
    to: ["support@in.acme-example.com"],
    cc: ["copy@sender-example.org"],
    subject: "Order 42 — question",
    message_id: "<q42@sender-example.org>",
    envelope_from: "jane@sender-example.org",
    envelope_to: ["support@in.acme-example.com", "sales@in.acme-example.com"],
    domain_id: acmeDomain.id,
    attachments: [
      // The inline image sits beside the html (multipart/related), before the attachment.
      { filename: "logo.png", content_type: "image/png", size: 8, content_id: "<logo@sender>" },
      { filename: "invoice.pdf", content_type: "application/pdf", size: 3000, content_id: null },
    ],
    size: raw.length,
    spf: "none",
    dkim: "none",
    dkim_signatures: [],
    raw_url: `${mail.url}/v1/inbound/${id}/raw`,
  };
  expect(listed.body).toEqual({ data: [summary], next_cursor: null });
  expect(await receivedEvents(acme.id)).toEqual([{ domainId: acmeDomain.id, data: summary }]);

  const one = await mail.call("GET", `/v1/inbound/${id}`, { key: acme.key });
  expect(one.body).toEqual({ ...summary, text: "Where is my order?", html: "<p>Where is my <b>order</b>?</p>" });

  const rawAnswer = await fetch(`${mail.url}/v1/inbound/${id}/raw`, { headers: { authorization: `Bearer ${acme.key}` } });
  expect([rawAnswer.status, rawAnswer.headers.get("content-type"), rawAnswer.headers.get("content-disposition")]).toEqual([200, "message/rfc822", `attachment; filename="${id}.eml"`]);
  expect(Buffer.from(await rawAnswer.arrayBuffer()).equals(raw)).toBe(true);

  // Another tenant sees none of it.
  for (const path of [`/v1/inbound/${id}`, `/v1/inbound/${id}/raw`]) {
    expect(await mail.call("GET", path, { key: other.key })).toMatchObject({ status: 404, body: { error: { code: "not_found", message: "inbound message not found" } } });
  }
  expect((await mail.call("GET", "/v1/inbound", { key: other.key })).body).toEqual({ data: [], next_cursor: null });
  expect((await mail.call("GET", "/v1/inbound", {})).status).toBe(401);
});

test("a message to recipients of two tenants is stored once for each, with only its own recipients", async () => {
  const raw = await compose({ from: "news@sender-example.org", to: "all@in.acme-example.com, all@other-example.net", subject: "Both", text: "hi" });
  const info = await sendInbound(mail, { envelope: { from: "news@sender-example.org", to: ["all@in.acme-example.com", "all@other-example.net", "nobody@unknown-example.org"] }, raw });
  expect(info.rejected).toEqual(["nobody@unknown-example.org"]);
  const acmeList = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ to: "ALL@in.acme-example.com" })}`, { key: acme.key });
  const otherList = await mail.call("GET", "/v1/inbound", { key: other.key });
  expect(acmeList.body.data.map((message: { envelope_to: string[]; subject: string }) => [message.subject, message.envelope_to])).toEqual([["Both", ["all@in.acme-example.com"]]]);
  expect(otherList.body.data.map((message: { envelope_to: string[]; subject: string; domain_id: string }) => [message.subject, message.envelope_to, message.domain_id])).toEqual([
    ["Both", ["all@other-example.net"], otherDomain.id],
  ]);
  expect(acmeList.body.data[0].email_id).not.toBe(otherList.body.data[0].email_id);
  expect((await receivedEvents(other.id)).map((event) => event.data.envelope_to)).toEqual([["all@other-example.net"]]);
});

test("the list filters by envelope recipient, From address and time, and pages newest first", async () => {
  const tenant = await mail.tenant("Filters");
  await addDomain(mail, tenant.key, "filters-example.com", { receiving: true });
  const start = mail.clock.now();
  for (const [index, from] of ["a@one-example.org", "B@Two-Example.org", "a@one-example.org"].entries()) {
    const raw = await compose({ from, to: "x@filters-example.com", subject: `m${index}`, text: "." });
    await sendInbound(mail, { envelope: { from, to: [index === 1 ? "y@filters-example.com" : "x@filters-example.com"] }, raw });
    mail.clock.advance(60_000);
  }
  const subjects = async (query: Record<string, string>) => {
    const answer = await mail.call("GET", `/v1/inbound?${new URLSearchParams(query)}`, { key: tenant.key });
    return [answer.body.data.map((message: { subject: string }) => message.subject), answer.body.next_cursor === null ? null : "more"];
  };
  expect(await subjects({})).toEqual([["m2", "m1", "m0"], null]);
  expect(await subjects({ to: "x@filters-example.com" })).toEqual([["m2", "m0"], null]);
  expect(await subjects({ to: "x%@filters-example.com" })).toEqual([[], null]);
  expect(await subjects({ from: "b@two-example.org" })).toEqual([["m1"], null]);
  expect(await subjects({ after: new Date(start + 60_000).toISOString() })).toEqual([["m2", "m1"], null]);
  expect(await subjects({ before: new Date(start + 60_000).toISOString() })).toEqual([["m0"], null]);
  const first = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ limit: "2" })}`, { key: tenant.key });
  expect(first.body.data.map((message: { subject: string }) => message.subject)).toEqual(["m2", "m1"]);
  const second = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ limit: "2", cursor: first.body.next_cursor })}`, { key: tenant.key });
  expect([second.body.data.map((message: { subject: string }) => message.subject), second.body.next_cursor]).toEqual([["m0"], null]);
  const bad = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ after: "yesterday" })}`, { key: tenant.key });
  expect(bad).toMatchObject({ status: 400, body: { error: { code: "validation", message: "after must be an RFC 3339 date-time" } } });
});

test("a message DKIM-signed by its sender, from an address SPF allows, is reported as dkim pass and spf pass", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicKeyBase64 = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  mail.dns.set("s2026._domainkey.signed-example.org", { TXT: [`v=DKIM1; k=rsa; p=${publicKeyBase64}`] });
  mail.dns.set("signed-example.org", { TXT: ["v=spf1 ip4:127.0.0.1 -all"] });
  const signer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    dkim: { domainName: "signed-example.org", keySelector: "s2026", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
  });
  const raw = (await signer.sendMail({ from: "billing@signed-example.org", to: "ap@in.acme-example.com", subject: "Signed invoice", text: "Signed." })).message as Buffer;
  await sendInbound(mail, { envelope: { from: "billing@signed-example.org", to: ["ap@in.acme-example.com"] }, raw });
  const answer = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ to: "ap@in.acme-example.com" })}`, { key: acme.key });
  expect(answer.body.data.map((message: { spf: string; dkim: string; dkim_signatures: unknown }) => [message.spf, message.dkim, message.dkim_signatures])).toEqual([
    ["pass", "pass", [{ domain: "signed-example.org", selector: "s2026", result: "pass" }]],
  ]);

  // The same message with a signed header altered after signing fails.
  const altered = Buffer.from(raw.toString("latin1").replace("Subject: Signed invoice", "Subject: Signed refund"), "latin1");
  await sendInbound(mail, { envelope: { from: "billing@signed-example.org", to: ["ap2@in.acme-example.com"] }, raw: altered });
  const failed = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ to: "ap2@in.acme-example.com" })}`, { key: acme.key });
  expect([failed.body.data[0].spf, failed.body.data[0].dkim]).toEqual(["pass", "fail"]);
});

test("hostile header values are stored and served as bounded, one-line, inert text", async () => {
  const script = "<script>alert(1)</script>";
  const longSubject = `${script} ${"A".repeat(5000)}`;
  const raw = Buffer.from(
    [
      `From: "${script}\u0007" <evil@hostile-example.org>`,
      "To: hostile@in.acme-example.com",
      `Subject: =?UTF-8?B?${Buffer.from(`Injected\r\nBcc: victim@example.org\r\n\u202e${longSubject}`).toString("base64")}?=`,
      "Message-ID: <bad id with spaces@x>",
      "Content-Type: text/html; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      `${script}<img src=x onerror=alert(2)>=00`,
      "",
    ].join("\r\n"),
    "latin1",
  );
  await sendInbound(mail, { envelope: { from: "evil@hostile-example.org", to: ["hostile@in.acme-example.com"] }, raw });
  const listed = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ to: "hostile@in.acme-example.com" })}`, { key: acme.key });
  const message = (await mail.call("GET", `/v1/inbound/${listed.body.data[0].email_id}`, { key: acme.key })).body;
  expect(message.subject).toHaveLength(998);
  expect(message.subject).toStartWith(`Injected Bcc: victim@example.org ${script} AAAA`);
  expect(message.subject).toEndWith("…");
  expect(message.from).toBe(`"${script}" <evil@hostile-example.org>`);
  expect(message.message_id).toBeNull();
  // A NUL decoded from the body (which the store could not keep) is U+FFFD.
  expect(message.html).toBe(`${script}<img src=x onerror=alert(2)>\uFFFD\n`);
  // The API answers JSON: nothing of the message is ever served as HTML.
  const answer = await fetch(`${mail.url}/v1/inbound/${message.email_id}`, { headers: { authorization: `Bearer ${acme.key}` } });
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  const raw2 = await fetch(`${mail.url}/v1/inbound/${message.email_id}/raw`, { headers: { authorization: `Bearer ${acme.key}` } });
  expect([raw2.headers.get("content-type"), raw2.headers.get("x-content-type-options")]).toEqual(["message/rfc822", "nosniff"]);
  expect(Buffer.from(await raw2.arrayBuffer()).equals(raw)).toBe(true);
});

test("the email.received event stays small: addresses, attachments and their names are bounded, the bodies left out", async () => {
  const raw = await compose({
    from: "bulk@sender-example.org",
    to: Array.from({ length: 300 }, (_, index) => `r${index}-${"l".repeat(40)}@in.acme-example.com`),
    cc: Array.from({ length: 300 }, (_, index) => `c${index}-${"l".repeat(40)}@in.acme-example.com`),
    subject: "Many",
    text: "t".repeat(100_000),
    attachments: Array.from({ length: 150 }, (_, index) => ({ filename: `${index}-${"n".repeat(1000)}.txt`, content: "x" })),
  });
  await sendInbound(mail, { envelope: { from: "bulk@sender-example.org", to: ["bulk@in.acme-example.com"] }, raw });
  const [event] = (await receivedEvents(acme.id)).filter((candidate) => candidate.data.subject === "Many");
  const data = event!.data as { to: string[]; cc: string[]; attachments: { filename: string }[] };
  expect([data.to.length, data.cc.length, data.attachments.length]).toEqual([100, 100, 100]);
  expect(data.attachments[0]!.filename).toHaveLength(255);
  expect("text" in data || "html" in data).toBe(false);
  expect(JSON.stringify(data).length).toBeLessThan(256 * 1024);
});
