// The messaging pages in headless Chromium against the real service and its gateway on the
// simulated network, the way a person uses them: Messaging from the sidebar; a wrong key
// answered with the gateway's 401; a project key connects (kept in this tab's sessionStorage,
// sent to /gateway only, in a header); a number is registered (the gateway's 400 and 409 shown
// inline, a hostile label shown as text), paired by its QR code (the phone scans the code the
// gateway issued) and turns paired; a message sent from the form reaches delivered, its
// detail shows the timeline and the attempt; a queued one is cancelled; a contact's message is
// listed as a delivery that retries with the webhook's refusal as its last error; dead letters
// replay, and one whose payload expired shows the gateway's 410; the pool and usage; and with
// the root key the operations: six rules, the replica holding the number, delivery health, and
// "critical" when the store is gone and the alerts answer 503.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { screenshotThemes, waitForCount, waitForPage } from "../../helpers/console-browser.ts";
import { rootKey, startMessaging, type MessagingFixture } from "./messaging-fixture.ts";
import { receiverRefusal } from "./keyed-service-fixture.ts";
import { connectWith, expectNothingRan, openTab, rowTexts, sentence } from "./keyed-service-steps.ts";

let fixture: MessagingFixture;
let page: Page;

const number = "+4915112340001";
const contact = "+4917012340002";
const hostileLabel = "<img src=x onerror=alert(1)>";
const hostileText = "<img src=x onerror=window.__pwned=1> Your order shipped";
const unauthorized = "Missing or invalid API key (send it in the apikey header).";

beforeAll(async () => {
  fixture = await startMessaging();
  page = fixture.tab.page;
}, 120_000);
afterAll(() => fixture?.close());

test("Messaging is an entry of the sidebar; a wrong key is refused with the gateway's 401 message", async () => {
  await page.goto(`${fixture.service.url}/projects/${fixture.projectId}/setup`);
  await page.getByRole("navigation", { name: "Services" }).getByRole("link", { name: "Messaging" }).click();
  await waitForPage(page, "Messaging");
  expect(new URL(page.url()).pathname).toBe("/messaging");
  await page.getByRole("heading", { name: "Connect to the gateway" }).waitFor();

  await connectWith(page, "Gateway key", "gw_live_not_a_key_of_this_gateway");
  expect(await page.getByRole("alert").textContent()).toBe(unauthorized);
  await screenshotThemes(page, "messaging-connect");
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(0);
});

test("a project key connects the tab: kept in sessionStorage only, and a reload keeps it", async () => {
  await connectWith(page, "Gateway key", fixture.projectKey);
  await page.getByText("Connected with a project key").waitFor();
  const storage = await page.evaluate(() => ({ session: Object.values(globalThis.sessionStorage).join(" "), local: Object.values(globalThis.localStorage).join(" ") }));
  expect(storage.session).toContain(fixture.projectKey);
  expect(storage.local).not.toContain(fixture.projectKey);
  await page.reload();
  await page.getByText("Connected with a project key").waitFor();
  expect(await page.getByRole("tab", { selected: true }).textContent()).toBe("Numbers");
  await page.getByText("No numbers yet").waitFor();
});

test("registering a number shows the gateway's 400 and 409 inline; the hostile label is text", async () => {
  const invalid = await fixture.gateway("POST", "/v1/instances", fixture.projectKey, { phone: "0151 1234" });
  expect(invalid.status).toBe(400);
  await page.getByLabel("Phone number").fill("0151 1234");
  await page.getByRole("button", { name: "Register a number" }).click();
  await page.getByRole("alert").getByText(sentence(invalid.body.error.message)).waitFor();

  await page.getByLabel("Phone number").fill(number);
  await page.getByLabel("Label").fill(hostileLabel);
  await page.getByRole("button", { name: "Register a number" }).click();
  await page.getByText(`${number} is registered. Pair it to put it in service.`).waitFor();
  expect(await rowTexts(page, ".table-card")).toEqual([[number, hostileLabel, "pending", "closed", "—", "Not yet", "PairRetire"]]);

  const duplicate = await fixture.gateway("POST", "/v1/instances", fixture.projectKey, { phone: number });
  expect(duplicate.status).toBe(409);
  await page.getByLabel("Phone number").fill(number);
  await page.getByRole("button", { name: "Register a number" }).click();
  await page.getByRole("alert").getByText(sentence(duplicate.body.error.message)).waitFor();
  await expectNothingRan(page, fixture.dialogs);
});

test("Pair shows the gateway's QR code as a PNG until the phone scans it, then the number is paired", async () => {
  await page.getByRole("button", { name: `Pair ${number}` }).click();
  const image = page.getByRole("img", { name: `Pairing code for ${number}` });
  await image.waitFor();
  const source = (await image.getAttribute("src"))!;
  // A data: URL of a PNG (the console's CSP allows data: images, not blob:), the key in no URL.
  expect(source.startsWith("data:image/png;base64,")).toBe(true);
  expect([...Buffer.from(source.slice("data:image/png;base64,".length), "base64").subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  await screenshotThemes(page, "messaging-pair");

  const instanceId = (await fixture.gateway("GET", "/v1/instances", fixture.projectKey)).body.instances[0].id;
  const qr = await fixture.gateway("GET", `/v1/instances/${instanceId}/qr`, fixture.projectKey);
  expect(qr.body.status).toBe("code");
  await fixture.phones.scan(number, qr.body.code);
  await page.getByText(`${number} is paired: it can send and receive now.`).waitFor();
  await page.getByRole("button", { name: "Done" }).click();
  await page.locator(".table-card tbody tr td .badge", { hasText: "open" }).waitFor();
  const [row] = await rowTexts(page, ".table-card");
  expect([row![0], row![1], row![2], row![3], row![4], row![6]]).toEqual([number, hostileLabel, "paired", "open", "—", "Log outRetire"]);
  await screenshotThemes(page, "messaging-numbers");
});

test("a message sent from the form reaches delivered; its detail shows the timeline and the attempt", async () => {
  await openTab(page, "Messages");
  expect(new URL(page.url()).search).toBe("?tab=messages");
  await page.getByText("No messages yet").waitFor();
  await page.getByLabel("To").fill(contact);
  await page.getByLabel("Text").fill(hostileText);
  await page.getByRole("button", { name: "Send message" }).click();
  await page.getByText(`The message to ${contact} is queued.`).waitFor();
  await page.locator(".table-card tbody tr .badge", { hasText: "delivered" }).waitFor();
  const [row] = await rowTexts(page, ".table-card");
  expect(row!.slice(1)).toEqual([contact, hostileText, "delivered", "1", "—"]);
  const inbox = await fixture.phones.inbox(contact);
  expect(inbox.map((message) => [message.from, message.content])).toEqual([[number, { type: "text", text: hostileText }]]);

  await page.locator(".table-card tbody tr").first().click();
  const detail = page.getByRole("dialog", { name: "Message" });
  await detail.getByRole("table", { name: "Attempts on the network" }).waitFor();
  const steps = await detail.locator(".timeline-step").evaluateAll((items) => items.map((item) => [item.querySelector(".timeline-label")!.textContent, item.classList.contains("timeline-done")]));
  expect(steps).toEqual([["Created", true], ["Sent", true], ["Delivered", true], ["Read", false]]);
  expect(await detail.locator(".message-text").textContent()).toBe(hostileText);
  const attempts = await detail.locator("tbody tr").evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent)));
  const instanceId = (await fixture.gateway("GET", "/v1/instances", fixture.projectKey)).body.instances[0].id;
  expect(attempts).toEqual([["accepted", instanceId, "—"]]);
  expect(await detail.getByRole("button", { name: "Cancel message" }).count()).toBe(0);
  await screenshotThemes(page, "messaging-message");
  await detail.getByRole("button", { name: "Close" }).click();
  await screenshotThemes(page, "messaging-messages");
  await expectNothingRan(page, fixture.dialogs);
});

test("a message the network refuses for now waits queued, and is cancelled from its detail", async () => {
  await fixture.phones.refuse(number, "transient", "try later");
  await page.getByLabel("To").fill(contact);
  await page.getByLabel("Text").fill("Refused for now");
  await page.getByRole("button", { name: "Send message" }).click();
  await page.getByText(`The message to ${contact} is queued.`).waitFor();
  // Queued again after the refused attempt, with the next attempt scheduled.
  const refused = page.locator(".table-card tbody tr", { hasText: "Refused for now" });
  await refused.locator("td", { hasText: /^1$/ }).waitFor();
  await refused.click();
  const detail = page.getByRole("dialog", { name: "Message" });
  await detail.getByRole("button", { name: "Cancel message" }).click();
  await detail.locator(".timeline-failed", { hasText: "Cancelled" }).waitFor();
  expect(await detail.getByRole("button", { name: "Cancel message" }).count()).toBe(0);
  const attempts = await detail.locator("tbody tr td:nth-child(2)").allTextContents();
  expect(attempts).toEqual(["refused"]);
  await detail.getByRole("button", { name: "Close" }).click();
  expect(await refused.locator(".badge").textContent()).toBe("cancelled");
  const messageId = (await fixture.gateway("GET", "/v1/messages?state=cancelled", fixture.projectKey)).body.messages[0].id;
  expect((await fixture.gateway("POST", `/v1/messages/${messageId}/cancel`, fixture.projectKey)).status).toBe(409);
  await fixture.phones.refuse(number, null);

  await page.getByLabel("State").selectOption("cancelled");
  await waitForCount(page, ".table-card tbody tr", 1);
  expect((await rowTexts(page, ".table-card"))[0]!.slice(1, 4)).toEqual([contact, "Refused for now", "cancelled"]);
  await page.getByLabel("State").selectOption("failed");
  await page.getByText("No failed messages").waitFor();
});

test("a contact's message is listed as a delivery; deliveries the webhook refused retry with its answer as text", async () => {
  await fixture.phones.sendFromPhone(contact, number, { text: "Where is my order?" });
  await openTab(page, "Deliveries");
  // The conversation's earlier delivery (the receipt) is still retrying, so this one waits its turn.
  const received = page.locator(".table-card tbody tr", { hasText: "message.received" });
  await received.waitFor();
  expect((await received.locator("td").allTextContents()).slice(1, 5)).toEqual(["message.received", "pending", "0", "—"]);
  const refused = await page.locator(".table-card tbody tr", { hasText: "retrying" }).evaluateAll((rows) => rows.map((row) => [row.children[1]!.textContent, row.children[4]!.textContent]));
  expect(refused.toSorted()).toEqual([["instance.paired", `HTTP ${receiverRefusal.status}: ${receiverRefusal.body}`], ["message.delivered", `HTTP ${receiverRefusal.status}: ${receiverRefusal.body}`]]);
  await screenshotThemes(page, "messaging-deliveries");
  await expectNothingRan(page, fixture.dialogs);
});

test("dead letters replay from the Deliveries tab; one whose payload expired shows the gateway's 410", async () => {
  // Dying takes seven retries over hours: the test writes that end into the store, and drops one payload as the 30-day expiry does.
  const { sql } = fixture.service.gateway.ctx.database;
  const deliveries = (await fixture.gateway("GET", "/v1/deliveries", fixture.projectKey)).body.deliveries as { id: string; event: string }[];
  const [replayable, expired] = deliveries;
  await sql`UPDATE gateway_deliveries SET state = 'dead', dead_at = ${Date.now()}, claimed_by = NULL WHERE id IN (${replayable!.id}, ${expired!.id})`;
  await sql`UPDATE gateway_deliveries SET payload = NULL WHERE id = ${expired!.id}`;
  const gone = await fixture.gateway("POST", `/v1/deliveries/${expired!.id}/replay`, fixture.projectKey);
  expect(gone.status).toBe(410);

  await page.getByLabel("State").selectOption("dead");
  await waitForCount(page, ".table-card tbody tr", 2);
  expect((await rowTexts(page, ".table-card")).map((row) => [row[1], row[2]]).sort()).toEqual([[replayable!.event, "dead"], [expired!.event, "dead"]].sort());
  const row = (id: string) => page.locator(".table-card tbody tr").nth(deliveries.findIndex((delivery) => delivery.id === id));
  await row(expired!.id).getByRole("button", { name: "Replay" }).click();
  expect(await page.getByRole("alert").textContent()).toBe(sentence(gone.body.error.message));
  await row(replayable!.id).getByRole("button", { name: "Replay" }).click();
  await page.getByText(`The ${replayable!.event} delivery is queued again.`).waitFor();
  expect(await row(replayable!.id).locator(".badge").textContent()).toMatch(/^(pending|retrying)$/);
});

test("Pool & usage shows the counters and the number ready in the pool", async () => {
  await openTab(page, "Pool & usage");
  await page.locator(".gateway-counter").first().waitFor();
  const usage = (await fixture.gateway("GET", "/v1/usage", fixture.projectKey)).body;
  expect(usage).toEqual({ sent: 1, rejected: 0, received: 1, pending: 0, dead: 1 });
  const counters = await page.locator(".gateway-counter").evaluateAll((items) => items.map((item) => [item.querySelector("dt")!.textContent, item.querySelector(".gateway-counter-value")!.textContent]));
  expect(counters).toEqual([["Sent", "1"], ["Waiting", "0"], ["Failed", "0"], ["Received", "1"], ["Dead letters", "1"]]);
  expect(await rowTexts(page, ".table-card")).toEqual([[number, hostileLabel, "ready", "—", "—"]]);
  expect(await page.getByText("1 number can send now.").count()).toBe(1);
  await screenshotThemes(page, "messaging-pool");
});

test("a second number is paired, logged out (pending again) and retired after the confirm dialog", async () => {
  const second = "+4915112340003";
  await openTab(page, "Numbers");
  await page.getByLabel("Phone number").fill(second);
  await page.getByRole("button", { name: "Register a number" }).click();
  await page.getByRole("button", { name: `Pair ${second}` }).click();
  await page.getByRole("img", { name: `Pairing code for ${second}` }).waitFor();
  const instanceId = (await fixture.gateway("GET", "/v1/instances", fixture.projectKey)).body.instances.find((instance: { phone: string }) => instance.phone === second).id;
  await fixture.phones.scan(second, (await fixture.gateway("GET", `/v1/instances/${instanceId}/qr`, fixture.projectKey)).body.code);
  await page.getByRole("button", { name: "Done" }).click();
  const row = page.locator(".table-card tbody tr", { hasText: second });
  await row.getByRole("button", { name: `Log out ${second}` }).click();
  await page.getByText(`${second} is logged out: pair it again to use it.`).waitFor();
  expect((await row.locator("td").allTextContents()).slice(2, 6)).toEqual(["pending", "closed", "—", "Not yet"]);

  await row.getByRole("button", { name: `Retire ${second}` }).click();
  const confirm = page.getByRole("dialog", { name: "Retire this number?" });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  expect(await confirm.isVisible()).toBe(false);
  expect((await fixture.gateway("GET", `/v1/instances/${instanceId}/number`, fixture.projectKey)).body.state).toBe("pending");
  await row.getByRole("button", { name: `Retire ${second}` }).click();
  await confirm.getByRole("button", { name: "Retire number" }).click();
  await page.getByText(`${second} is retired.`).waitFor();
  expect((await row.locator("td").allTextContents()).slice(2, 4)).toEqual(["retired", "closed"]);
  expect(await row.getByRole("button").count()).toBe(0);
  expect((await fixture.gateway("GET", `/v1/instances/${instanceId}/number`, fixture.projectKey)).body.state).toBe("retired");
});

test("the key went to /gateway only, in its header, never in a URL; Disconnect forgets it", async () => {
  const keyed = fixture.requests.filter((request) => request.keyHeader !== undefined);
  expect(keyed.length).toBeGreaterThan(0);
  expect(keyed.filter((request) => !new URL(request.url).pathname.startsWith("/gateway/"))).toEqual([]);
  expect(fixture.requests.filter((request) => request.url.includes(fixture.projectKey))).toEqual([]);
  await page.getByRole("button", { name: "Disconnect" }).click();
  await page.getByRole("heading", { name: "Connect to the gateway" }).waitFor();
  expect(await page.evaluate(() => globalThis.sessionStorage.length)).toBe(0);
});

test("with the root key, Operations lists the six rules, the replica holding the number, delivery health and dead letters", async () => {
  await connectWith(page, "Gateway key", rootKey);
  await page.getByText("Connected with the root key").waitFor();
  await page.getByRole("table", { name: "Alert rules, firing ones first" }).waitFor();
  const alerts = (await fixture.gateway("GET", "/v1/admin/alerts", rootKey)).body;
  const rules = await page.getByRole("table", { name: "Alert rules, firing ones first" }).locator("tbody tr td:first-child").allTextContents();
  expect(rules.length).toBe(6);
  expect(rules.toSorted()).toEqual(alerts.alerts.map((alert: { rule: string }) => alert.rule).toSorted());
  const firing = alerts.alerts.filter((alert: { firing: boolean }) => alert.firing).map((alert: { rule: string }) => alert.rule);
  expect(rules.slice(0, firing.length).toSorted()).toEqual(firing.toSorted());
  expect(await page.locator(".gateway-status .badge").textContent()).toBe(alerts.status);

  const replicas = await page.getByRole("table", { name: "Live replicas and the numbers each holds" }).locator("tbody tr td:last-child").allTextContents();
  expect(replicas).toEqual([number]);
  const health = await page.getByRole("table", { name: "Delivery health per number" }).locator("tbody tr td").allTextContents();
  expect([health[0], health[2], health[3], health[4], health[5]]).toEqual([number, "delivering", "open", "1", "1"]);
  const dead = page.getByRole("table", { name: "Deliveries of every project, newest first" });
  await dead.waitFor();
  expect(await dead.locator("tbody tr td:nth-child(2)").allTextContents()).toEqual([fixture.gatewayProjectId]);
  await screenshotThemes(page, "messaging-operations");
  await expectNothingRan(page, fixture.dialogs);
});

test("when the store is gone the alerts answer 503 and the page says critical", async () => {
  await fixture.service.gateway.ctx.database.close();
  const alerts = await fixture.gateway("GET", "/v1/admin/alerts", rootKey);
  expect([alerts.status, alerts.body.status]).toEqual([503, "critical"]);
  await page.getByRole("button", { name: "Refresh" }).first().click();
  await page.locator(".gateway-status-critical").waitFor();
  expect(await page.locator(".gateway-status").textContent()).toBe("critical Critical: a critical rule fires, and the gateway answers 503 to its health check.");
  const first = await page.getByRole("table", { name: "Alert rules, firing ones first" }).locator("tbody tr").first().locator("td").allTextContents();
  expect(first.slice(0, 3)).toEqual(["store_unreachable", "critical", "firing"]);
  await screenshotThemes(page, "messaging-operations-critical");
});
