// The webhook format end to end: a local receiver verifies each delivery's Standard Webhooks
// signature with the `standardwebhooks` package (as a customer would) and with the plain Node
// crypto snippet of docs/findings-delivery.md, for a `whsec_` secret and for a typed one; a
// tampered body and an old timestamp are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { startFindingsDelivery, type FindingsDelivery } from "../../../server/findings/delivery/findings-delivery.ts";
import { webhookSignature } from "../../../server/findings/delivery/webhook-signature.ts";
import type { RegionStore } from "../../../storage/region-store.ts";
import { destination, finding, project, projectId, removeDirs, startReceiver, t0, tempStore, whsecSecret, type Answer, type Receiver, type ReceivedRequest } from "./fixtures.ts";

const typedSecret = "pässwörd-不-typed by a person";

/** The plain Node crypto check of docs/findings-delivery.md, as written there. */
function verifyWithNodeCrypto(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const rest = secret.slice("whsec_".length);
  const key = secret.startsWith("whsec_") && /^[A-Za-z0-9+/]+={0,2}$/.test(rest) ? Buffer.from(rest, "base64") : Buffer.from(secret, "utf8");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    const given = Buffer.from(signature ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Answers 204 when the standardwebhooks library verifies the request, else 401 with its reason. */
const verifying =
  (verifier: Webhook): Answer =>
  (request: ReceivedRequest) => {
    try {
      verifier.verify(request.body, request.headers);
      return new Response(null, { status: 204 });
    } catch (error) {
      return new Response((error as Error).message, { status: 401 });
    }
  };

const dirs: string[] = [];
let store: RegionStore;
let delivery: FindingsDelivery;
let whsecReceiver: Receiver;
let typedReceiver: Receiver;

beforeAll(() => {
  ({ store } = tempStore(dirs));
  whsecReceiver = startReceiver([verifying(new Webhook(whsecSecret))]);
  typedReceiver = startReceiver([verifying(new Webhook(new TextEncoder().encode(typedSecret), { format: "raw" }))]);
  store.findingsConfig.upsert([
    project([
      destination({ id: "d-whsec", name: "Ops endpoint", secret: whsecReceiver.url, config: { to: ["ops@example.com"], channel: "alerts" } }),
      destination({ id: "d-typed", name: "Typed secret", secret: typedReceiver.url, signing_secret: typedSecret }),
    ]),
  ]);
  delivery = startFindingsDelivery(store, { start: false, now: () => t0 });
});

afterAll(async () => {
  await delivery.stop();
  whsecReceiver.close();
  typedReceiver.close();
  store.close();
  removeDirs(dirs);
});

describe("webhook deliveries", () => {
  test("a raised finding is posted signed, verified by the standardwebhooks package and by plain Node crypto", async () => {
    delivery.outbox.enqueue(projectId, finding(), ["d-whsec", "d-typed"]);
    expect(await delivery.runner.runDue(t0)).toBe(2);
    expect(whsecReceiver.requests.length).toBe(1);
    expect(typedReceiver.requests.length).toBe(1);
    const [request] = whsecReceiver.requests;
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(request!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(10);
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(JSON.parse(request!.body)).toEqual({
      type: "finding.raised",
      timestamp: "2026-11-28T05:59:00.000Z",
      data: {
        id: "0191f0a0-0000-7000-8000-00000000f001",
        project_id: projectId,
        rule_id: "0191f0a0-0000-7000-8000-00000000a001",
        rule_name: "Signups per day",
        target: { kind: "event_volume", event: "signup" },
        cadence: "daily",
        severity: "warning",
        period_start: "2026-11-27T00:00:00.000Z",
        period_end: "2026-11-28T00:00:00.000Z",
        value: 120,
        baseline: 400,
        change: -280,
        relative_change: -0.7,
        anomaly_z: null,
        summary: "signup fell to 120 from a usual 400 (-70%)",
        raised_at: "2026-11-28T05:59:00.000Z",
        links: {
          finding: "https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001/findings/0191f0a0-0000-7000-8000-00000000f001",
          project: "https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001",
        },
        destination: { id: "d-whsec", name: "Ops endpoint", to: ["ops@example.com"], channel: "alerts" },
      },
    });
    expect(verifyWithNodeCrypto(whsecSecret, request!.headers, request!.body)).toBe(true);
    expect(verifyWithNodeCrypto(typedSecret, typedReceiver.requests[0]!.headers, typedReceiver.requests[0]!.body)).toBe(true);
    // The typed secret is its UTF-8 bytes, not a base64 key.
    expect(verifyWithNodeCrypto(typedSecret, request!.headers, request!.body)).toBe(false);
    const states = delivery.outbox.deliveriesOf("0191f0a0-0000-7000-8000-00000000f001");
    expect(states.map((state) => ({ ...state, attempts: state.attempts.map(({ durationMs, ...rest }) => rest) }))).toEqual([
      { destinationId: "d-typed", state: "delivered", attempts: [{ destinationId: "d-typed", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 204, ok: true, error: null }], nextAttemptAt: null },
      { destinationId: "d-whsec", state: "delivered", attempts: [{ destinationId: "d-whsec", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 204, ok: true, error: null }], nextAttemptAt: null },
    ]);
    for (const state of states) expect(state.attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("the receiver refuses a tampered body, an old timestamp and a missing signature", async () => {
    const [request] = whsecReceiver.requests;
    const post = (headers: Record<string, string>, body: string) => fetch(whsecReceiver.url, { method: "POST", headers, body });
    const tampered = await post(request!.headers, request!.body.replace('"value":120', '"value":121'));
    expect([tampered.status, await tampered.text()]).toEqual([401, "No matching signature found"]);
    const old = Math.floor(Date.now() / 1000) - 600;
    const stale = await post({ ...request!.headers, "webhook-timestamp": String(old), "webhook-signature": webhookSignature(whsecSecret, request!.headers["webhook-id"]!, old, request!.body) }, request!.body);
    expect([stale.status, await stale.text()]).toEqual([401, "Message timestamp too old"]);
    const { "webhook-signature": _, ...unsigned } = request!.headers;
    const missing = await post(unsigned, request!.body);
    expect([missing.status, await missing.text()]).toEqual([401, "Missing required headers"]);
    // The same request as sent still verifies (the refusals are for the changes alone).
    const again = await post(request!.headers, request!.body);
    expect(again.status).toBe(204);
  });

  test("send test posts a signed finding.test", async () => {
    const before = whsecReceiver.requests.length;
    const attempt = await delivery.outbox.sendTest(projectId, "d-whsec");
    expect({ ...attempt, durationMs: 0 }).toEqual({ destinationId: "d-whsec", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 204, ok: true, error: null, durationMs: 0 });
    const request = whsecReceiver.requests[before]!;
    expect(JSON.parse(request.body)).toEqual({
      type: "finding.test",
      timestamp: "2026-11-28T06:00:00.000Z",
      data: {
        project_id: projectId,
        message: 'A test of the findings destination "Ops endpoint": findings raised in this project will be sent here.',
        links: { project: "https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001" },
        destination: { id: "d-whsec", name: "Ops endpoint", to: ["ops@example.com"], channel: "alerts" },
      },
    });
    expect(verifyWithNodeCrypto(whsecSecret, request.headers, request.body)).toBe(true);
  });
});
