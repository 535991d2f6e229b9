// End to end: the control plane sends its verification, password-reset and invitation emails
// through this process's own mail API (CONTROL_MAIL_API_URL unset), from a domain verified
// against a local DNS server, and they arrive DKIM-signed at an SMTP receiver playing the
// recipients' MX; the tests read them there, as other tests read the outbox, and follow them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authenticate } from "mailauth";
import { signUp, strongPassword } from "../helpers/accounts.ts";
import { call, bearer } from "../helpers/client.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { TestDnsServer } from "../mail/helpers/dns-server.ts";
import { SmtpReceiver } from "../mail/helpers/smtp-receiver.ts";
import { publishDomainRecords } from "../mail/sending/fixture.ts";
import { smtpMailReader } from "./mail/smtp-mail-reader.ts";

const rootKey = "mk_root_control_mail_test_0123456789";
const sendingDomain = "send.analytics.test";
const from = `Analytics <noreply@${sendingDomain}>`;
// signUp makes addresses at example.com; its MX is the receiver.
const recipientDomain = "example.com";
const recipientMx = "mx.recipient.test";

let dns: TestDnsServer;
let receiver: SmtpReceiver;
let service: TestService;
/** The operator tenant's full-access key, to look at what the mail API holds. */
let fullKey: string;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  receiver = await SmtpReceiver.start({ hostName: recipientMx });
  dns.set(recipientDomain, { MX: [{ exchange: recipientMx, priority: 10 }] });
  dns.set(recipientMx, { A: ["127.0.0.1"] });
  const env = {
    REGIONS: "eu",
    MAIL_ROOT_KEY: rootKey,
    MAIL_HOSTNAME: "mx.mail-service.test",
    MAIL_DNS_SERVERS: dns.servers.join(","),
    MAIL_DELIVERY_PORT: String(receiver.port),
  };

  // First the operator's part, on the mail API: a tenant, a verified domain, a sending key.
  const setup = await startTestService(env);
  const mailApi = `${setup.url}/mail`;
  const tenant = await call(mailApi, "POST", "/v1/tenants", { body: { name: "Analytics operator" }, headers: bearer(rootKey) });
  expect(tenant.status).toBe(201);
  fullKey = tenant.body.api_key.token;
  const domain = await call(mailApi, "POST", "/v1/domains", { body: { name: sendingDomain }, headers: bearer(fullKey) });
  expect(domain.status).toBe(201);
  publishDomainRecords(dns, domain.body.records);
  const verified = await call(mailApi, "POST", `/v1/domains/${domain.body.id}/verify`, { headers: bearer(fullKey) });
  expect(verified.body.status).toBe("verified");
  const sendingKey = await call(mailApi, "POST", "/v1/api-keys", { body: { name: "control plane", permission: "sending_access", domain_id: domain.body.id }, headers: bearer(fullKey) });
  expect(sendingKey.status).toBe(201);
  await setup.stop();

  // Then the control plane, started again on the same data with the key and sender.
  service = await startTestService(
    { ...env, CONTROL_MAIL_API_KEY: sendingKey.body.token, CONTROL_MAIL_FROM: from },
    { dataDir: setup.dataDir, mailReader: () => smtpMailReader(receiver) },
  );
});

afterAll(async () => {
  await service?.close();
  await receiver?.close();
  await dns?.close();
});

describe("the control plane's mail through its own mail API", () => {
  test("sign-up: the verification email arrives DKIM-signed, with html and text, and its link verifies the address", async () => {
    const user = await signUp(service, "Ada <b>Lovelace</b>");
    const mail = await service.awaitMail(user.email, "verify_email");
    expect(mail).toEqual({ to: user.email, kind: "verify_email", subject: "Confirm your email address", link: `${service.url}/verify-email?token=${mail.token}`, token: mail.token });
    expect(service.mail()).toEqual([]);
    const raw = receiver.received.at(-1)!.raw;
    const { dkim } = await authenticate(raw, {
      resolver: dns.resolve,
      ip: "127.0.0.1",
      helo: "mx.mail-service.test",
      sender: `noreply@${sendingDomain}`,
      mta: recipientMx,
      disableArc: true,
      disableDmarc: true,
      disableBimi: true,
    });
    expect(dkim.results.map((result) => ({ status: result.status.result, domain: result.signingDomain }))).toEqual([{ status: "pass", domain: sendingDomain }]);
    const text = raw.toString("utf8");
    expect(text).toContain("Content-Type: text/html");
    expect(text).toContain("Content-Type: text/plain");
    expect(text).not.toContain("<b>Lovelace</b></p>");
    expect((await user.client.post("/app/auth/verify-email", { token: mail.token })).status).toBe(204);
  });

  test("a password reset arrives and its token sets the new password", async () => {
    const user = await signUp(service);
    expect((await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } })).status).toBe(202);
    const mail = await service.awaitMail(user.email, "password_reset");
    // The mail API holds it under its kind's tag.
    const listed = await call(`${service.url}/mail`, "GET", `/v1/emails?tag=kind:password_reset&recipient=${encodeURIComponent(user.email)}`, { headers: bearer(fullKey) });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject([{ from, to: [user.email], subject: "Reset your password", tags: [{ name: "kind", value: "password_reset" }] }]);
    const newPassword = `${strongPassword}-again`;
    expect((await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token: mail.token, new_password: newPassword } })).status).toBe(204);
    expect((await call(service.url, "POST", "/app/auth/login", { body: { email: user.email, password: newPassword } })).status).toBe(200);
  });

  test("an invitation arrives and its token joins the organisation", async () => {
    const owner = await signUp(service, "Owner");
    const invitee = await signUp(service, "Invitee");
    expect((await owner.client.post(`/app/orgs/${owner.orgId}/invitations`, { email: invitee.email, role: "viewer" })).status).toBe(201);
    const mail = await service.awaitMail(invitee.email, "invitation");
    expect(mail.subject).toStartWith("You are invited to ");
    expect((await invitee.client.post("/app/invitations/accept", { token: mail.token })).status).toBe(200);
  });
});
