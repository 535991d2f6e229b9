// "Send test" end to end: POST /app/projects/{id}/findings/destinations/{id}/test makes the
// project's region send one message to the destination's URL now, and answers the attempt. A
// local HTTP receiver (port 0) stands in for Slack and for a customer's webhook endpoint; the
// webhook kind's messages carry Standard Webhooks signatures the receiver verifies with the
// destination's signing secret (whsec_ form, and a plain string used as its UTF-8 bytes).
// Needs the region's findings dispatcher (RegionNode.findings) wired at start-up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { Webhook } from "standardwebhooks";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { isoPattern } from "../../helpers/client.ts";
import { destinationsPath, whsec } from "./fixture.ts";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

let service: TestService;
let owner: SignedUpUser;
let project: any;
let receiver: Server<unknown>;
let received: Received[] = [];
/** What the receiver answers next. */
let answerStatus = 200;

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(answerStatus === 200 ? "ok" : "failed", { status: answerStatus });
    },
  });
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Owner");
  project = (await createProject(owner, "Shop", "eu")).project;
});
afterAll(async () => {
  await service.close();
  receiver.stop(true);
});

const receiverUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
const sendTest = (destinationId: string) => owner.client.post(`${destinationsPath(project.id)}/${destinationId}/test`);
const attemptOf = (destinationId: string, status: number | null, ok: boolean, error: unknown = null) => ({
  attempt: { destination_id: destinationId, attempt: 1, at: expect.stringMatching(isoPattern), status, ok, error, duration_ms: expect.any(Number) },
});

describe("POST …/findings/destinations/{id}/test", () => {
  test("a webhook destination (whsec_ secret): one signed POST reaches the receiver; the answer is the attempt", async () => {
    received = [];
    answerStatus = 200;
    const destination = (await owner.client.post(destinationsPath(project.id), {
      kind: "webhook", name: "Receiver", secret: receiverUrl("/hooks/whsec"), signing_secret: whsec,
    })).body;
    const reply = await sendTest(destination.id);
    expect([reply.status, reply.body]).toEqual([200, attemptOf(destination.id, 200, true)]);
    expect(received.map((item) => item.path)).toEqual(["/hooks/whsec"]);
    const message = received[0]!;
    expect(() => new Webhook(whsec).verify(message.body, message.headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(message.body, message.headers)).toThrow();
    expect(typeof JSON.parse(message.body)).toBe("object");
  });

  test("a webhook destination with a plain signing secret: signed with its UTF-8 bytes", async () => {
    received = [];
    answerStatus = 200;
    const plain = "a-plain-signing-secret-for-tests";
    const destination = (await owner.client.post(destinationsPath(project.id), {
      kind: "webhook", name: "Plain", secret: receiverUrl("/hooks/plain"), signing_secret: plain,
    })).body;
    expect((await sendTest(destination.id)).body).toEqual(attemptOf(destination.id, 200, true));
    const message = received[0]!;
    expect(() => new Webhook(new TextEncoder().encode(plain), { format: "raw" }).verify(message.body, message.headers)).not.toThrow();
  });

  test("a Slack destination: one JSON POST with a text to the incoming-webhook URL", async () => {
    received = [];
    answerStatus = 200;
    const destination = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Slack", secret: receiverUrl("/services/T1/B2/abc") })).body;
    expect((await sendTest(destination.id)).body).toEqual(attemptOf(destination.id, 200, true));
    expect(received.map((item) => item.path)).toEqual(["/services/T1/B2/abc"]);
    expect(typeof JSON.parse(received[0]!.body).text).toBe("string");
  });

  test("a receiver that fails, and one that cannot be reached: the attempt says so (200; the test ran)", async () => {
    received = [];
    answerStatus = 500;
    const failing = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Failing", secret: receiverUrl("/fail") })).body;
    const failed = await sendTest(failing.id);
    expect([failed.status, failed.body]).toEqual([200, attemptOf(failing.id, 500, false, expect.any(String))]);
    expect(received).toHaveLength(1);

    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const closedUrl = `http://127.0.0.1:${closed.port}/gone`;
    closed.stop(true);
    const unreachable = (await owner.client.post(destinationsPath(project.id), { kind: "slack", name: "Gone", secret: closedUrl })).body;
    const reply = await sendTest(unreachable.id);
    expect([reply.status, reply.body]).toEqual([200, attemptOf(unreachable.id, null, false, expect.any(String))]);
  });
});
