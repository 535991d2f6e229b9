// The control plane configured to send through a mail API (here a recording stand-in on
// loopback): what each of its three emails POSTs, that an HTTP answer never waits for the mail
// API and answers a reset request for a known and an unknown address alike, and that an email
// the API refuses ends in the outbox, where its token still works.
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { signUp, strongPassword } from "../../helpers/accounts.ts";
import { call } from "../../helpers/client.ts";
import { outboxMail } from "../../helpers/outbox.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { RecordingMailApi } from "./recording-mail-api.ts";

const apiKey = "mk_live_control_plane_sending_key";
const from = "Analytics <noreply@send.example.com>";
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let api: RecordingMailApi;
/** The service a test started, closed after it (null once the test stopped it itself). */
let running: TestService | null = null;

async function start(): Promise<TestService> {
  api = RecordingMailApi.start();
  running = await startTestService({ REGIONS: "eu", CONTROL_MAIL_API_KEY: apiKey, CONTROL_MAIL_FROM: from, CONTROL_MAIL_API_URL: api.url });
  return running;
}

afterEach(async () => {
  await running?.close();
  running = null;
  await api.close();
});

const sentBodies = () => api.requests.map((request) => JSON.parse(request.body));

describe("the control plane sending through the mail API", () => {
  test("sign-up: the verification email is POSTed with html, text and its kind as a tag, and nothing goes to the outbox", async () => {
    const service = await start();
    const user = await signUp(service, "Ada <b>Lovelace</b>");
    await service.ctx.mail.settled();
    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect(request!.path).toBe("/mail/v1/emails");
    expect(request!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(request!.headers["idempotency-key"]!.replace(/^control-mail-/, "")).toMatch(uuid);
    const body = sentBodies()[0];
    expect(Object.keys(body).sort()).toEqual(["from", "html", "subject", "tags", "text", "to"]);
    expect(body).toMatchObject({ from, to: [user.email], subject: "Confirm your email address", tags: [{ name: "kind", value: "verify_email" }] });
    expect(body.html).toContain("<p>Hello Ada &lt;b&gt;Lovelace&lt;/b&gt;,</p>");
    expect(body.text).toStartWith("Hello Ada <b>Lovelace</b>,\n");
    const link = body.text.match(/Confirm my email address: (\S+)/)[1];
    expect(link).toStartWith(`${service.url}/verify-email?token=`);
    expect(body.html).toContain(`<a href="${link}">`);
    expect(service.mail()).toEqual([]);
    const token = new URL(link).searchParams.get("token");
    expect((await call(service.url, "POST", "/app/auth/verify-email", { body: { token } })).status).toBe(204);
  });

  test("a reset request is answered at once while the mail API holds the email, and the same for an unknown address", async () => {
    const service = await start();
    const user = await signUp(service);
    await service.ctx.mail.settled();
    api.plan("hold");
    let settled = false;
    const known = await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } });
    void service.ctx.mail.settled().then(() => (settled = true));
    const unknown = await call(service.url, "POST", "/app/auth/password-reset", { body: { email: `nobody-${crypto.randomUUID()}@example.com` } });
    expect({ status: known.status, body: known.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect(known.status).toBe(202);
    await api.received(2);
    expect(settled).toBe(false);
    expect(sentBodies()[1]).toMatchObject({ to: [user.email], subject: "Reset your password", tags: [{ name: "kind", value: "password_reset" }] });
    // Stopping cuts the held attempt: the email is not lost, it is in the outbox.
    const dataDir = service.dataDir;
    await service.stop();
    const [written] = outboxMail(dataDir) as any[];
    expect(written).toMatchObject({ to: user.email, kind: "password_reset", undelivered: "the control plane stopped during the attempt" });
    rmSync(dataDir, { recursive: true, force: true });
    running = null;
  });

  test("an invitation from an organisation with a hostile name: one-line subject, escaped html", async () => {
    const service = await start();
    const owner = await signUp(service, "Eve");
    expect((await owner.client.patch(`/app/orgs/${owner.orgId}`, { name: `<img src=x onerror=alert(1)> & "Co"\r\nBcc: victim@example.com` })).status).toBe(200);
    const invite = await owner.client.post(`/app/orgs/${owner.orgId}/invitations`, { email: "bob@example.com", role: "viewer" });
    expect(invite.status).toBe(201);
    await service.ctx.mail.settled();
    const body = sentBodies().find((item) => item.tags[0].value === "invitation");
    expect(body.subject).toBe(`You are invited to <img src=x onerror=alert(1)> & "Co" Bcc: victim@example.com`);
    expect(body.html).toContain("<p>Eve invites you to join the organisation &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot; Bcc: victim@example.com.</p>");
    expect(body.html).not.toContain("<img");
    expect(body.to).toEqual(["bob@example.com"]);
  });

  test("an email the mail API refuses (403: the from domain is not verified) is written to the outbox, and its token works", async () => {
    const service = await start();
    const user = await signUp(service);
    await service.ctx.mail.settled();
    api.plan({ status: 403, body: JSON.stringify({ error: { code: "domain_not_verified", message: "send.example.com is not verified" } }) });
    expect((await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } })).status).toBe(202);
    const mail = await service.awaitMail(user.email, "password_reset");
    expect((mail as any).undelivered).toBe('the mail API answered 403: {"error":{"code":"domain_not_verified","message":"send.example.com is not verified"}}');
    const confirmed = await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token: mail.token, new_password: `${strongPassword}-2` } });
    expect(confirmed.status).toBe(204);
  });
});
