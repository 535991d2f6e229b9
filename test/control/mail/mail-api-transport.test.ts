// The mail API transport against a real HTTP server on loopback: what it sends, which answers it
// retries (with the same Idempotency-Key), and that every message it cannot send ends in the
// outbox file with the reason.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MailApiTransport, mailApiAttemptTimeoutMs, mailApiRetryDelaysMs, type MailApiTransportOptions } from "../../../server/control/mail/mail-api-transport.ts";
import { OutboxTransport } from "../../../server/control/mail/outbox-transport.ts";
import type { OutgoingMail } from "../../../server/control/mail/outgoing-mail.ts";
import { RecordingMailApi } from "./recording-mail-api.ts";

const apiKey = "mk_live_control_plane_sending_key";
const from = "Analytics <noreply@send.example.com>";

const mail = (id = "0b7f3c1e-4a43-4c8e-9a65-2a3d8f0e1c11"): OutgoingMail => ({
  id,
  to: "ada@example.com",
  kind: "password_reset",
  subject: "Reset your password",
  html: "<p>Reset</p>",
  text: "Reset",
  link: `http://localhost/reset-password?token=secret-${id}`,
  token: `secret-${id}`,
});

let api: RecordingMailApi;
let dir: string;
let logs: string[];
let waits: number[];

beforeEach(() => {
  api = RecordingMailApi.start();
  dir = mkdtempSync(join(tmpdir(), "control-mail-"));
  logs = [];
  waits = [];
});

afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const outboxPath = () => join(dir, "mail-outbox.jsonl");
const outboxLines = () => (existsSync(outboxPath()) ? readFileSync(outboxPath(), "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []);

function transport(options: Partial<MailApiTransportOptions> = {}): MailApiTransport {
  return new MailApiTransport({
    apiUrl: () => api.url,
    apiKey,
    from,
    outbox: new OutboxTransport(outboxPath(), (line) => logs.push(line)),
    log: (line) => logs.push(line),
    // Back-offs are recorded, not waited for.
    wait: async (ms) => void waits.push(ms),
    ...options,
  });
}

const expectedBody = (item: OutgoingMail) => ({
  from,
  to: [item.to],
  subject: item.subject,
  html: item.html,
  text: item.text,
  tags: [{ name: "kind", value: item.kind }],
});

const error = (status: number, code: string) => ({ status, body: JSON.stringify({ error: { code, message: `${code} happened` } }) });

describe("mail API transport", () => {
  test("one POST to {mail_api_url}/v1/emails with the key, the Idempotency-Key and the exact body; nothing in the outbox", async () => {
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect({ method: request!.method, path: request!.path }).toEqual({ method: "POST", path: "/mail/v1/emails" });
    expect(request!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["idempotency-key"]).toBe("control-mail-0b7f3c1e-4a43-4c8e-9a65-2a3d8f0e1c11");
    expect(JSON.parse(request!.body)).toEqual(expectedBody(mail()));
    expect(logs).toEqual(["control mail: password_reset for ada@example.com queued by the mail API as email-1"]);
    expect(existsSync(outboxPath())).toBe(false);
    expect(waits).toEqual([]);
  });

  test("two messages carry their own Idempotency-Keys", async () => {
    const sender = transport();
    sender.send(mail("11111111-1111-4111-8111-111111111111"));
    sender.send(mail("22222222-2222-4222-8222-222222222222"));
    await sender.settled();
    expect(api.requests.map((request) => request.headers["idempotency-key"]).sort()).toEqual([
      "control-mail-11111111-1111-4111-8111-111111111111",
      "control-mail-22222222-2222-4222-8222-222222222222",
    ]);
  });

  test("503, 500, 429 are tried again with the same key and body after each back-off; the fourth attempt succeeds", async () => {
    api.plan(error(503, "unavailable"), error(500, "internal"), error(429, "rate_limited"));
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(4);
    expect(new Set(api.requests.map((request) => request.headers["idempotency-key"]))).toEqual(new Set(["control-mail-0b7f3c1e-4a43-4c8e-9a65-2a3d8f0e1c11"]));
    expect(new Set(api.requests.map((request) => request.body)).size).toBe(1);
    expect(waits).toEqual([...mailApiRetryDelaysMs]);
    expect(waits).toEqual([1_000, 5_000, 30_000]);
    expect(logs.at(-1)).toBe("control mail: password_reset for ada@example.com queued by the mail API as email-1");
    expect(existsSync(outboxPath())).toBe(false);
  });

  test.each([408, 409, 425, 429, 500, 502, 503, 504])("%d is retried", async (status) => {
    api.plan(error(status, "temporary"));
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(2);
    expect(existsSync(outboxPath())).toBe(false);
  });

  test("when every attempt fails, the message is written to the outbox whole, with the last reason, and a warning is logged", async () => {
    api.plan(error(503, "unavailable"), error(503, "unavailable"), error(503, "unavailable"), error(502, "bad_gateway"));
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(4);
    const reason = 'the mail API answered 502: {"error":{"code":"bad_gateway","message":"bad_gateway happened"}}';
    const [line, ...rest] = outboxLines();
    expect(rest).toEqual([]);
    const { queued_at, ...written } = line;
    expect(typeof queued_at).toBe("string");
    expect(written).toEqual({ ...mail(), undelivered: reason });
    expect(logs.filter((entry) => entry.includes("trying again"))).toHaveLength(3);
    expect(logs.slice(-2)).toEqual([
      `control mail: warning: password_reset for ada@example.com was not sent through the mail API (${reason}); written to the outbox instead`,
      `mail outbox: password_reset for ada@example.com written to ${outboxPath()}`,
    ]);
  });

  test.each([400, 401, 403, 404, 413, 422])("%d is a refusal: not retried, written to the outbox at once", async (status) => {
    api.plan(error(status, "refused"));
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(outboxLines().map((line) => line.undelivered)).toEqual([`the mail API answered ${status}: {"error":{"code":"refused","message":"refused happened"}}`]);
  });

  test("an attempt without an answer within the attempt time-out is tried again", async () => {
    api.plan("hold");
    const sender = transport({ attemptTimeoutMs: 200 });
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(2);
    expect(logs[0]).toBe("control mail: password_reset for ada@example.com not taken (no answer within 200 ms); trying again");
    expect(logs[1]).toBe("control mail: password_reset for ada@example.com queued by the mail API as email-1");
    expect(mailApiAttemptTimeoutMs).toBe(10_000);
  });

  test("a mail API nobody listens at: every attempt fails, then the outbox", async () => {
    const closed = RecordingMailApi.start();
    const url = closed.url;
    await closed.close();
    const sender = transport({ apiUrl: () => url });
    sender.send(mail());
    await sender.settled();
    expect(waits).toEqual([1_000, 5_000, 30_000]);
    const [line] = outboxLines();
    expect(line.undelivered).toStartWith("the mail API could not be reached: ");
    expect(line.token).toBe(mail().token);
  });

  test("an error answer is logged bounded to 300 characters, on one line", async () => {
    api.plan({ status: 403, body: `forbidden\r\n${"x".repeat(10_000)}` });
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    const [line] = outboxLines();
    expect(line.undelivered).toBe(`the mail API answered 403: forbidden ${"x".repeat(290)}`);
  });

  test("a 200 without a JSON body still counts as sent (the API took it)", async () => {
    api.plan({ status: 200, body: "<html>ok</html>" });
    const sender = transport();
    sender.send(mail());
    await sender.settled();
    expect(api.requests).toHaveLength(1);
    expect(logs).toEqual(["control mail: password_reset for ada@example.com queued by the mail API as (no id in the answer)"]);
  });

  test("closing during a back-off writes the message to the outbox instead of waiting", async () => {
    api.plan(error(503, "unavailable"));
    let backingOff: () => void = () => {};
    const backOff = new Promise<void>((resolve) => (backingOff = resolve));
    const sender = transport({
      wait: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          backingOff();
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    });
    sender.send(mail());
    await backOff;
    await sender.close();
    expect(api.requests).toHaveLength(1);
    expect(outboxLines().map((line) => line.undelivered)).toEqual([
      'the mail API answered 503: {"error":{"code":"unavailable","message":"unavailable happened"}}; the control plane stopped before the next attempt',
    ]);
  });

  test("closing during an attempt cuts it and writes the message to the outbox", async () => {
    api.plan("hold");
    const sender = transport();
    sender.send(mail());
    await api.received(1);
    await sender.close();
    expect(outboxLines()).toHaveLength(1);
    expect(outboxLines()[0].undelivered).toBe("the control plane stopped during the attempt");
  });

  test("a message handed over after close goes straight to the outbox", async () => {
    const sender = transport();
    await sender.close();
    sender.send(mail());
    expect(api.requests).toEqual([]);
    expect(outboxLines().map((line) => line.undelivered)).toEqual(["the control plane is stopping"]);
  });

  test("an outbox that cannot be written is reported as an error, and settled() still resolves", async () => {
    api.plan(error(403, "refused"));
    const missing = join(dir, "no-such-directory", "mail-outbox.jsonl");
    const sender = transport({ outbox: new OutboxTransport(missing, (line) => logs.push(line)) });
    sender.send(mail());
    await sender.settled();
    expect(logs.at(-1)).toStartWith(`control mail: error: password_reset for ada@example.com could be neither sent nor written to the outbox: ENOENT`);
  });

  test("send returns before the mail API answers", async () => {
    api.plan("hold");
    const sender = transport();
    sender.send(mail());
    let settled = false;
    void sender.settled().then(() => (settled = true));
    await api.received(1);
    expect(settled).toBe(false);
    await sender.close();
    expect(settled).toBe(true);
  });
});
