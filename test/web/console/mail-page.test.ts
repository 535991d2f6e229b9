// The Mail page in headless Chromium against the real service, its mail API resolving through
// a local DNS server and delivering to a real SMTP server on loopback, the way a person uses
// it: Mail from the sidebar (/email, not the API's /mail); a wrong key and a sending-only key
// refused with the API's own 401 and 403; the tenant's key connects (sessionStorage only, sent
// to /mail alone in its Authorization header); a domain is added, its records shown and copied,
// published and verified; sent emails are listed with a hostile subject as text, searched,
// and one's detail shows each recipient's hop, the bounce class in words, the hops and the
// SMTP conversation; a scheduled one is rescheduled and cancelled; addresses are suppressed
// and removed after a confirmation; a webhook's secret shows once, its deliveries show the
// receiver's refusal as text and replay; usage shows the plan, the count and the price.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { screenshotThemes, waitForCount, waitForPage } from "../../helpers/console-browser.ts";
import { mailRootKey, startMailFixture, type MailFixture } from "./mail-fixture.ts";
import { receiverRefusal } from "./keyed-service-fixture.ts";
import { connectWith, expectNothingRan, openTab, rowTexts, sentence } from "./keyed-service-steps.ts";

let fixture: MailFixture;
let page: Page;

const domain = "send.acme.test";
const hostileSubject = "<img src=x onerror=window.__pwned=1> Your receipt";
const hostileNote = "<script>window.__pwned=1</script>";
const hostileFrom = `"<img src=x onerror=window.__pwned=1>" <hello@${domain}>`;

async function send(body: Record<string, unknown>): Promise<string> {
  const sent = await fixture.mail("POST", "/v1/emails", fixture.tenantKey, { from: `Acme <hello@${domain}>`, text: "Hello", ...body });
  expect(sent.status).toBe(200);
  return sent.body.id;
}

beforeAll(async () => {
  fixture = await startMailFixture();
  page = fixture.tab.page;
}, 120_000);
afterAll(() => fixture?.close());

test("Mail is an entry of the sidebar at /email; a wrong key and a sending-only key are refused with the API's messages", async () => {
  await page.goto(`${fixture.service.url}/projects/${fixture.projectId}/setup`);
  await page.getByRole("navigation", { name: "Services" }).getByRole("link", { name: "Mail" }).click();
  await waitForPage(page, "Mail");
  expect(new URL(page.url()).pathname).toBe("/email");
  await page.getByRole("heading", { name: "Connect to the mail API" }).waitFor();

  const unknown = await fixture.mail("GET", "/v1/usage", "mk_live_not_a_key_of_this_service");
  expect(unknown.status).toBe(401);
  await connectWith(page, "Mail API key", "mk_live_not_a_key_of_this_service");
  expect(await page.getByRole("alert").textContent()).toBe(sentence(unknown.body.error.message));

  const sendingKey = await fixture.mail("POST", "/v1/api-keys", fixture.tenantKey, { name: "sender", permission: "sending_access" });
  expect(sendingKey.status).toBe(201);
  const refused = await fixture.mail("GET", "/v1/usage", sendingKey.body.token);
  expect(refused.status).toBe(403);
  await connectWith(page, "Mail API key", sendingKey.body.token);
  await page.getByRole("alert").getByText(sentence(refused.body.error.message)).waitFor();
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(0);
  await screenshotThemes(page, "mail-connect");
});

test("the tenant's key connects the tab: kept in sessionStorage only; a reload keeps it; the empty Emails tab says what to do", async () => {
  await connectWith(page, "Mail API key", fixture.tenantKey);
  await page.getByText("Connected with the key").waitFor();
  const storage = await page.evaluate(() => ({ session: Object.values(globalThis.sessionStorage).join(" "), local: Object.values(globalThis.localStorage).join(" ") }));
  expect(storage.session).toContain(fixture.tenantKey);
  expect(storage.local).not.toContain(fixture.tenantKey);
  await page.reload();
  await page.getByText("Connected with the key").waitFor();
  expect(await page.getByRole("tab", { selected: true }).textContent()).toBe("Emails");
  await page.getByText("No emails yet").waitFor();
  expect(await page.locator(".state-text").textContent()).toContain("Add and verify a domain on the Domains tab");
});

test("a domain is added and shows its records to publish, copied whole; once published, Verify now verifies it", async () => {
  await openTab(page, "Domains");
  expect(new URL(page.url()).search).toBe("?tab=domains");
  await page.getByText("No domains yet").waitFor();
  const invalid = await fixture.mail("POST", "/v1/domains", fixture.tenantKey, { name: "not a domain" });
  expect(invalid.status).toBeGreaterThanOrEqual(400);
  await page.getByLabel("Domain", { exact: true }).fill("not a domain");
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByRole("alert").getByText(sentence(invalid.body.error.message)).waitFor();

  await page.getByLabel("Domain", { exact: true }).fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByText(`${domain} is added. Publish its records below, then Verify now.`).waitFor();
  const [added] = (await fixture.mail("GET", "/v1/domains", fixture.tenantKey)).body.data;
  const card = page.getByRole("region", { name: domain });
  expect(await card.locator(".badge").first().textContent()).toBe("pending");
  const rows = await rowTexts(page, ".mail-domain");
  expect(rows.map((row) => [row[1], row[4], row[5], row[6]])).toEqual(added.records.map((record: any) => [record.type, record.priority === null ? "—" : String(record.priority), "not found", "—"]));
  const shownValues = await card.locator("tbody tr td:nth-child(4) code").allTextContents();
  expect(shownValues).toEqual(added.records.map((record: any) => record.value));
  expect(await card.locator("tbody tr td:nth-child(3) code").allTextContents()).toEqual(added.records.map((record: any) => record.name));

  await card.getByRole("button", { name: "Copy DKIM value" }).click();
  await card.getByRole("button", { name: "Copy DKIM value" }).getByText("Copied").waitFor();
  expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(added.records[0].value);

  await card.getByRole("button", { name: `Verify ${domain} now` }).click();
  await card.getByText(`${domain} is pending: DNS does not show every required record yet.`).waitFor();
  await screenshotThemes(page, "mail-domain-pending");

  fixture.publish(added.records);
  await card.getByRole("button", { name: `Verify ${domain} now` }).click();
  await card.getByText(`${domain} is verified: it can send.`).waitFor();
  expect(await card.locator(".badge").first().textContent()).toBe("verified");
  expect((await rowTexts(page, ".mail-domain")).map((row) => [row[5], row[6]])).toEqual(added.records.map(() => ["verified", "the value"]));
  await screenshotThemes(page, "mail-domains");
  await expectNothingRan(page, fixture.dialogs);
});

test("sent emails are listed with the hostile subject as text; one's detail shows each recipient's hop, the bounce in words and the SMTP conversation", async () => {
  fixture.smtp.answerRcpt("gone@example.net", { code: 550, text: "5.1.1 User unknown" });
  const mixed = await send({ from: hostileFrom, to: ["ana@example.net", "gone@example.net"], subject: hostileSubject, tags: [{ name: "category", value: "receipt" }] });
  const from = (await fixture.mail("GET", `/v1/emails/${mixed}`, fixture.tenantKey)).body.from;
  expect(from).toContain("<img src=x onerror=window.__pwned=1>");
  const nowhere = await send({ to: ["bob@nowhere.invalid"], subject: "To a domain that does not exist" });
  await fixture.service.mailApi.deliverQueued();
  expect(fixture.smtp.received.map((message) => message.recipients)).toEqual([["ana@example.net"]]);

  await openTab(page, "Emails");
  await waitForCount(page, ".table-card tbody tr", 2);
  expect((await rowTexts(page, ".table-card")).map((row) => row.slice(1))).toEqual([
    [`Acme <hello@${domain}>`, "bob@nowhere.invalid", "To a domain that does not exist", "bounced"],
    [from, "ana@example.net, gone@example.net", hostileSubject, "partially delivered"],
  ]);
  await screenshotThemes(page, "mail-emails");

  await page.locator(".table-card tbody tr", { hasText: "ana@example.net" }).click();
  const detail = page.getByRole("dialog", { name: "Email" });
  await detail.getByRole("table", { name: "Recipients and where each stands" }).waitFor();
  expect(await detail.locator(".message-text").textContent()).toBe(hostileSubject);
  const recipients = await detail.getByRole("table", { name: "Recipients and where each stands" }).locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 5).map((td) => td.textContent)));
  expect(recipients).toEqual([
    ["ana@example.net", "delivered", "1", "250 OK: message queued (mx.example.net)", "—"],
    ["gone@example.net", "bounced", "1", "550 5.1.1 User unknown (mx.example.net)", "The recipient's mail server says this mailbox does not exist" + "Then the address is suppressed: nothing more is sent to it."],
  ]);
  const hops = await detail.locator(".mail-hop .timeline-label").allTextContents();
  expect(hops).toEqual(["Sent", "Delivered", "Bounced"]);
  expect(await detail.locator(".mail-hop", { hasText: "Bounced" }).locator(".mail-hop-detail").textContent()).toBe(
    "The recipient's mail server says this mailbox does not exist. Remote answer: 550 5.1.1 User unknown",
  );
  const transcript = (await detail.getByLabel("SMTP conversation with example.net").textContent())!;
  const lines = transcript.split("\n").map((line) => line.replace(/^ *\+\d+ms|^ +/, "").trim());
  expect(lines).toContain("S: 220 mx.example.net ESMTP");
  expect(lines).toContain("C: STARTTLS");
  expect(lines).toContain(`C: MAIL FROM:<bounce+${mixed}@bounces.${domain}>`);
  expect(lines).toContain("C: RCPT TO:<gone@example.net>");
  expect(lines).toContain("S: 550 5.1.1 User unknown");
  expect(await detail.locator(".mail-attempt-facts").textContent()).toContain("encrypted (TLS) · answered by mx.example.net (127.0.0.1:");
  expect(await detail.getByRole("button", { name: "Cancel email" }).count()).toBe(0);
  await screenshotThemes(page, "mail-email-detail");
  await detail.locator(".mail-attempt").scrollIntoViewIfNeeded();
  await screenshotThemes(page, "mail-email-transcript");
  await detail.getByRole("button", { name: "Close" }).click();

  await page.locator(".table-card tbody tr", { hasText: "bob@nowhere.invalid" }).click();
  await detail.locator(".mail-bounce-class").waitFor();
  expect(await detail.locator(".mail-bounce-class").textContent()).toBe("The domain does not exist or accepts no mail");
  expect(await detail.locator(".mail-answer").first().textContent()).toBe("nowhere.invalid has no MX, A or AAAA record");
  expect(await detail.getByLabel("SMTP conversation with nowhere.invalid").textContent()).toMatch(/^ *\+0ms  \* nowhere\.invalid has no MX, A or AAAA record\n$/);
  await detail.getByRole("button", { name: "Close" }).click();
  expect(nowhere).toBeString();
  await expectNothingRan(page, fixture.dialogs);
});

test("the search filters by status, recipient and tag; a search without a match says so, and Clear shows every email again", async () => {
  await page.getByLabel("Status").selectOption("bounced");
  await page.getByRole("button", { name: "Search" }).click();
  await waitForCount(page, ".table-card tbody tr", 1);
  expect((await rowTexts(page, ".table-card"))[0]![2]).toBe("bob@nowhere.invalid");
  expect(fixture.requests.some((request) => new URL(request.url).search === "?status=bounced")).toBe(true);

  await page.getByRole("button", { name: "Clear" }).click();
  await waitForCount(page, ".table-card tbody tr", 2);
  await page.getByLabel("Tag").fill("category:receipt");
  await page.getByRole("button", { name: "Search" }).click();
  await waitForCount(page, ".table-card tbody tr", 1);
  expect((await rowTexts(page, ".table-card"))[0]![3]).toBe(hostileSubject);

  await page.getByLabel("Tag").fill("");
  await page.getByLabel("Recipient").fill("nobody@example.org");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("No email matches this search").waitFor();

  const invalid = await fixture.mail("GET", "/v1/emails?tag=no-colon", fixture.tenantKey);
  expect(invalid.status).toBe(400);
  await page.getByLabel("Recipient").fill("");
  await page.getByLabel("Tag").fill("no-colon");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("alert").getByText(sentence(invalid.body.error.message)).waitFor();
  await page.getByRole("button", { name: "Clear" }).click();
  await waitForCount(page, ".table-card tbody tr", 2);
});

test("a scheduled email is rescheduled and then cancelled from its detail", async () => {
  const scheduled = await send({ to: ["cy@example.net"], subject: "Tomorrow's digest", scheduled_at: "in 2 hours" });
  await page.locator(".table-card").getByRole("button", { name: "Refresh" }).click();
  await waitForCount(page, ".table-card tbody tr", 3);
  await page.locator(".table-card tbody tr", { hasText: "Tomorrow's digest" }).click();
  const detail = page.getByRole("dialog", { name: "Email" });
  const at = new Date(Date.now() + 26 * 3_600_000);
  const pad = (value: number) => String(value).padStart(2, "0");
  const local = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
  await detail.getByLabel("Send at").fill(local);
  await detail.getByRole("button", { name: "Reschedule" }).click();
  await detail.getByText(/^The email now goes /).waitFor();
  expect((await fixture.mail("GET", `/v1/emails/${scheduled}`, fixture.tenantKey)).body.scheduled_at).toBe(new Date(local).toISOString());

  await detail.getByRole("button", { name: "Cancel email" }).click();
  await detail.getByRole("group", { name: "Cancel this email?" }).getByRole("button", { name: "Cancel the email" }).click();
  await detail.getByText("The email is cancelled: it will not be sent, and its recipients no longer count towards this month.").waitFor();
  await detail.locator(".facts .badge", { hasText: "cancelled" }).waitFor();
  expect(await detail.getByRole("button", { name: "Cancel email" }).count()).toBe(0);
  await detail.getByRole("button", { name: "Close" }).click();
  expect(await page.locator(".table-card tbody tr", { hasText: "Tomorrow's digest" }).locator(".badge").textContent()).toBe("cancelled");
  expect((await fixture.mail("GET", `/v1/emails/${scheduled}`, fixture.tenantKey)).body.status).toBe("cancelled");
});

test("the suppression list shows the hard bounces by reason; an address is added with a hostile note, filtered, and removed after a confirmation", async () => {
  await openTab(page, "Suppressions");
  await waitForCount(page, ".table-card tbody tr", 2);
  expect((await rowTexts(page, ".table-card")).map((row) => row.slice(0, 3)).sort()).toEqual([
    ["bob@nowhere.invalid", "hard bounce", "The domain does not exist or accepts no mail: nowhere.invalid has no MX, A or AAAA record"],
    ["gone@example.net", "hard bounce", "The recipient's mail server says this mailbox does not exist: User unknown"],
  ]);

  const invalid = await fixture.mail("POST", "/v1/suppressions", fixture.tenantKey, { address: "no-at-sign" });
  expect(invalid.status).toBe(422);
  await page.getByRole("textbox", { name: "Address" }).fill("no-at-sign");
  await page.getByRole("button", { name: "Suppress" }).click();
  await page.getByRole("alert").getByText(sentence(invalid.body.error.message)).waitFor();

  await page.getByRole("textbox", { name: "Address" }).fill("Stop@Example.org");
  await page.getByLabel("Note").fill(hostileNote);
  await page.getByRole("button", { name: "Suppress" }).click();
  await page.getByText("stop@example.org is suppressed.").waitFor();
  expect((await rowTexts(page, ".table-card"))[0]!.slice(0, 3)).toEqual(["stop@example.org", "manual", hostileNote]);
  await screenshotThemes(page, "mail-suppressions");

  await page.getByLabel("Reason").selectOption("manual");
  await waitForCount(page, ".table-card tbody tr", 1);
  await page.getByLabel("Reason").selectOption("complaint");
  await page.getByText("No addresses suppressed for “complaint”").waitFor();
  await page.getByLabel("Reason").selectOption("");
  await waitForCount(page, ".table-card tbody tr", 3);

  await page.getByRole("button", { name: "Remove gone@example.net" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove this address from the list?" });
  expect(await confirm.textContent()).toContain("Its server refused it for good");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  expect(await confirm.isVisible()).toBe(false);
  expect((await fixture.mail("GET", "/v1/suppressions/gone%40example.net", fixture.tenantKey)).status).toBe(200);
  await page.getByRole("button", { name: "Remove gone@example.net" }).click();
  await confirm.getByRole("button", { name: "Remove" }).click();
  await page.getByText("gone@example.net is no longer suppressed: emails to it are sent again.").waitFor();
  expect(await page.locator(".table-card tbody tr", { hasText: "gone@example.net" }).count()).toBe(0);
  expect((await fixture.mail("GET", "/v1/suppressions/gone%40example.net", fixture.tenantKey)).status).toBe(404);
  await expectNothingRan(page, fixture.dialogs);
});

test("a webhook endpoint shows its secret once; its deliveries show the receiver's refusal as text, and a failed one replays", async () => {
  await openTab(page, "Webhooks");
  await page.getByText("No endpoints yet").waitFor();
  const invalid = await fixture.mail("POST", "/v1/webhooks", fixture.tenantKey, { url: fixture.webhookUrl, events: [] });
  expect(invalid.status).toBeGreaterThanOrEqual(400);
  await page.getByLabel("Endpoint URL").fill(fixture.webhookUrl);
  for (const type of ["email.delivered", "email.bounced", "email.complained"]) await page.getByRole("checkbox", { name: type }).uncheck();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.getByRole("alert").getByText(sentence(invalid.body.error.message)).waitFor();

  await page.getByRole("checkbox", { name: "email.sent" }).check();
  await page.getByRole("checkbox", { name: "email.delivered" }).check();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  const secret = (await page.getByLabel("Signing secret", { exact: true }).textContent())!;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  await page.getByText("Copy it now: it is not shown again.", { exact: false }).waitFor();
  expect((await rowTexts(page, ".table-card"))[0]!.slice(0, 3)).toEqual([fixture.webhookUrl, "Sent, Delivered", "enabled"]);
  await screenshotThemes(page, "mail-webhook-secret");
  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.getByLabel("Endpoint URL").waitFor();
  expect(await page.content()).not.toContain(secret);

  await send({ to: ["dee@example.net"], subject: "Webhook trigger" });
  await fixture.service.mailApi.deliverQueued();
  await fixture.service.mailApi.deliverWebhooks();
  await page.getByRole("button", { name: `Deliveries to ${fixture.webhookUrl}` }).click();
  const deliveries = page.getByRole("table", { name: "Deliveries to this endpoint, newest first" });
  await deliveries.waitFor();
  const shown = await deliveries.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(1, 4).map((td) => td.textContent)));
  expect(shown.toSorted()).toEqual([
    ["email.delivered", "pending", `HTTP ${receiverRefusal.status}`],
    ["email.sent", "pending", `HTTP ${receiverRefusal.status}`],
  ]);
  const row = deliveries.locator("tbody tr", { hasText: "email.sent" });
  await row.getByText("1 attempt").click();
  expect(await row.locator(".mail-excerpt").textContent()).toBe(receiverRefusal.body);
  await screenshotThemes(page, "mail-webhook-deliveries");

  const webhookId = (await fixture.mail("GET", "/v1/webhooks", fixture.tenantKey)).body.data[0].id;
  const sentDelivery = (await fixture.mail("GET", `/v1/webhooks/${webhookId}/deliveries`, fixture.tenantKey)).body.data.find((delivery: any) => delivery.event_type === "email.sent");
  // Failing takes eight attempts over 31 hours: the test writes that end into the store.
  await fixture.service.mailApi.ctx.database.sql`UPDATE mail_webhook_deliveries SET state = 'failed' WHERE id = ${sentDelivery.id}`;
  await page.getByLabel("State").selectOption("failed");
  await waitForCount(page, "table[aria-label] tbody tr, .table-card:last-of-type tbody tr", 1);
  await deliveries.locator("tbody tr").first().getByRole("button", { name: "Replay" }).click();
  await page.getByText("The email.sent delivery is queued again.").waitFor();
  expect(await deliveries.locator("tbody tr .badge").first().textContent()).toBe("pending");
  const again = await fixture.mail("POST", `/v1/webhooks/${webhookId}/deliveries/${sentDelivery.id}/replay`, fixture.tenantKey);
  expect(again.status).toBe(409);
  await expectNothingRan(page, fixture.dialogs);
});

test("Usage shows the plan, this month's emails and the price, with the tiers on a paid plan", async () => {
  await openTab(page, "Usage");
  await page.locator(".gateway-counter").first().waitFor();
  const usage = (await fixture.mail("GET", "/v1/usage", fixture.tenantKey)).body;
  const counters = async () => page.locator(".gateway-counter").evaluateAll((items) => items.map((item) => [item.querySelector("dt")!.textContent, item.querySelector(".gateway-counter-value")!.textContent]));
  expect(await counters()).toEqual([["Plan", "free"], [`Emails in ${usage.month}`, String(usage.emails)], ["Price this month", "$0.00"]]);
  expect(await page.locator(".gateway-counter-meaning").nth(1).textContent()).toContain("of 10,000 this plan sends");

  const tenantId = (await fixture.mail("GET", "/v1/tenants", mailRootKey)).body.data[0].id;
  expect((await fixture.mail("PATCH", `/v1/tenants/${tenantId}`, mailRootKey, { plan: "growth" })).status).toBe(200);
  await page.getByRole("button", { name: "Refresh" }).click();
  await page.getByRole("table", { name: "Price of the emails past those included, tier by tier" }).waitFor();
  expect(await counters()).toEqual([["Plan", "growth"], [`Emails in ${usage.month}`, String(usage.emails)], ["Price this month", "$20.00"]]);
  expect(await rowTexts(page, ".table-card")).toEqual([
    ["50,001 to 500,000", "$0.80", "0", "$0.00"],
    ["500,001 and more", "$0.60", "0", "$0.00"],
  ]);
  await screenshotThemes(page, "mail-usage");
});

test("Received says how to receive mail while there is none", async () => {
  await openTab(page, "Received");
  await page.getByText("No mail received yet").waitFor();
});

test("the key went to /mail only, in its Authorization header, never in a URL; Disconnect forgets it; nothing else went wrong", async () => {
  // The console's own region calls carry their region tokens; the mail key is the one with "mk_".
  const keyed = fixture.requests.filter((request) => request.keyHeader?.startsWith("Bearer mk_"));
  expect(keyed.length).toBeGreaterThan(0);
  expect(keyed.filter((request) => !new URL(request.url).pathname.startsWith("/mail/"))).toEqual([]);
  expect(fixture.requests.filter((request) => request.url.includes(fixture.tenantKey))).toEqual([]);
  await page.getByRole("button", { name: "Disconnect" }).click();
  await page.getByRole("heading", { name: "Connect to the mail API" }).waitFor();
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(0);
  // The refusals this test asked for on purpose (the wrong keys, invalid input) are logged by the browser; nothing else is.
  const provoked = /Failed to load resource: the server responded with a status of (400|401|403|404|409|422)/;
  expect(fixture.tab.problems.filter((problem) => !provoked.test(problem))).toEqual([]);
  await expectNothingRan(page, fixture.dialogs);
});

test("logging out of the console forgets the mail key pasted in the tab", async () => {
  await connectWith(page, "Mail API key", fixture.tenantKey);
  await page.getByRole("heading", { name: "Connect to the mail API" }).waitFor({ state: "detached" });
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(1);
  await page.getByRole("button", { name: "Log out" }).click();
  await waitForPage(page, "Log in");
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(0);
});
