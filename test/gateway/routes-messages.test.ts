// A project's sending over real HTTP: queue text and media (limits at their edge), the 400s
// naming what is wrong, Idempotency-Key retries, the message's life (sent, delivered once to the
// recipient's phone, read; failed when refused for good; queued again when refused for now),
// cancel, the queue and attempt lists, the pool's status of each number, and usage counters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import { mediaBytesMax, textLengthMax } from "../../server/gateway/send-service.ts";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";

let gw: TestGateway;
let nextNumber = 1_000;
/** A number no other test of this file uses (gateway numbers and recipients alike). */
const freshPhone = () => `+4916200${nextNumber++}`;

beforeAll(async () => {
  // Leases outlive the file and the supervisor never passes on its own: a dropped number stays
  // disconnected until the test sweeps.
  gw = await startTestGateway({ GATEWAY_LEASE_TTL_MS: "3600000", GATEWAY_SUPERVISOR_INTERVAL_MS: "1200000" });
});
afterAll(async () => {
  await gw.close();
});

const reply = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });
const invalid = (message: string) => ({ status: 400, body: { error: { code: "validation", message } } });

const queuedBody = (to: string, content: Record<string, unknown>, idempotencyKey: string | null = null) => ({
  id: expect.stringMatching(uuidPattern),
  to,
  type: content.type,
  content,
  state: "queued",
  failure: null,
  instanceId: null,
  attempts: 0,
  idempotencyKey,
  createdAt: expect.stringMatching(isoPattern),
  sentAt: null,
  deliveredAt: null,
  readAt: null,
  nextAttemptAt: expect.stringMatching(isoPattern),
});

const message = async (t: TestGateway, key: string, id: string) => (await t.call("GET", `/v1/messages/${id}`, { key })).body;
const untilState = (t: TestGateway, key: string, id: string, state: string) =>
  waitFor(async () => (await message(t, key, id)).state === state, 10_000, `message ${id} ${state}`);
const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64");

describe("send: what is accepted", () => {
  test("text is queued with 202 and read back the same; list filters by state and pages newest first", async () => {
    const { key } = await gw.project();
    const to = freshPhone();
    const sent = await gw.call("POST", "/v1/send", { key, body: { to: ` ${to} `, text: "Your order has shipped" } });
    expect(reply(sent)).toEqual({ status: 202, body: queuedBody(to, { type: "text", text: "Your order has shipped" }) });
    expect(sent.headers.get("idempotent-replayed")).toBeNull();
    expect(reply(await gw.call("GET", `/v1/messages/${sent.body.id}`, { key }))).toEqual({ status: 200, body: sent.body });

    const longest = await gw.call("POST", "/v1/send", { key, body: { to, text: "x".repeat(textLengthMax) } });
    expect(longest.status).toBe(202);
    const third = await gw.call("POST", "/v1/send", { key, body: { to, text: "third" } });
    const cancelled = await gw.call("POST", `/v1/messages/${third.body.id}/cancel`, { key });
    const page1 = await gw.call("GET", "/v1/messages?limit=2", { key });
    expect(reply(page1)).toEqual({ status: 200, body: { messages: [cancelled.body, longest.body], nextCursor: longest.body.id } });
    expect(reply(await gw.call("GET", `/v1/messages?limit=2&cursor=${longest.body.id}`, { key }))).toEqual({ status: 200, body: { messages: [sent.body], nextCursor: null } });
    expect(reply(await gw.call("GET", "/v1/messages?state=queued", { key }))).toEqual({ status: 200, body: { messages: [longest.body, sent.body], nextCursor: null } });
    expect(reply(await gw.call("GET", "/v1/messages?state=cancelled", { key }))).toEqual({ status: 200, body: { messages: [cancelled.body], nextCursor: null } });
    expect(reply(await gw.call("GET", "/v1/messages?state=read", { key }))).toEqual({ status: 200, body: { messages: [], nextCursor: null } });
    expect((await gw.call("GET", "/v1/messages?state=lost", { key })).status).toBe(400);
    expect((await gw.call("GET", "/v1/messages?limit=0", { key })).status).toBe(400);
  });

  test("media up to each type's limit is queued (bytes counted, not echoed); one byte more is 413", async () => {
    const { key } = await gw.project();
    const to = freshPhone();
    const cases = [
      { type: "image", mimeType: "image/jpeg", extra: {} },
      { type: "document", mimeType: "application/pdf", extra: { fileName: "invoice.pdf", caption: "March" } },
      { type: "audio", mimeType: "audio/ogg", extra: {} },
    ] as const;
    for (const { type, mimeType, extra } of cases) {
      const max = mediaBytesMax[type];
      const atLimit = await gw.call("POST", "/v1/send", { key, body: { to, media: { type, mimeType, dataBase64: base64Of(max), ...extra } } });
      const fileName = "fileName" in extra ? extra.fileName : null;
      const caption = "caption" in extra ? extra.caption : null;
      expect({ type, ...reply(atLimit) }).toEqual({ type, status: 202, body: queuedBody(to, { type, mimeType, fileName, caption, bytes: max }) });
      const over = await gw.call("POST", "/v1/send", { key, body: { to, media: { type, mimeType, dataBase64: base64Of(max + 1), ...extra } } });
      expect({ type, ...reply(over) }).toEqual({
        type,
        status: 413,
        body: { error: { code: "payload_too_large", message: `media: a ${type} may be at most ${max} bytes; this one is ${max + 1}` } },
      });
    }
    expect((await gw.call("GET", "/v1/messages", { key })).body.messages.length).toBe(3);
  });

  test("bad requests are 400 with what is wrong, and nothing is queued", async () => {
    const { key } = await gw.project();
    const to = freshPhone();
    const send = (body: unknown) => gw.call("POST", "/v1/send", { key, body }).then(reply);
    const image = { type: "image", mimeType: "image/png", dataBase64: base64Of(10) };
    expect(await send({ to: "4916212345678", text: "hi" })).toEqual(invalid('to: "4916212345678" is not an E.164 number (a plus sign and 8 to 15 digits, e.g. +4915112345678)'));
    expect(await send({ to: "+49 162 1234567", text: "hi" })).toEqual(invalid('to: "+49 162 1234567" is not an E.164 number (a plus sign and 8 to 15 digits, e.g. +4915112345678)'));
    expect(await send({ to, text: "hi", media: image })).toEqual(invalid("give exactly one of text and media"));
    expect(await send({ to })).toEqual(invalid("give exactly one of text and media"));
    expect(await send({ to, text: "" })).toEqual(invalid("text: must not be empty"));
    expect(await send({ to, text: " \n " })).toEqual(invalid("text: must not be empty"));
    expect(await send({ to, text: "x".repeat(textLengthMax + 1) })).toEqual(invalid(`body /text: Expected string length less or equal to ${textLengthMax}`));
    expect(await send({ to, media: { ...image, dataBase64: "not base64!" } })).toEqual(invalid("media.dataBase64: not base64"));
    expect(await send({ to, media: { ...image, dataBase64: "abc" } })).toEqual(invalid("media.dataBase64: not base64"));
    expect(await send({ to, media: { ...image, dataBase64: "" } })).toEqual(invalid("media.dataBase64: empty"));
    expect(await send({ to, media: { ...image, mimeType: "png" } })).toEqual(invalid('media.mimeType: "png" is not a MIME type'));
    expect(await send({ to, media: { ...image, type: "document", mimeType: "application/pdf" } })).toEqual(invalid("media.fileName: a document needs a file name"));
    expect(await send({ to, text: "hi", priority: "high" })).toEqual(invalid("body /priority: Unexpected property"));
    expect(await send({ to, media: { ...image, width: 10 } })).toEqual(invalid("body /media/width: Unexpected property"));
    expect(await send({ text: "hi" })).toEqual(invalid("body /to: Expected required property"));
    expect(reply(await gw.call("POST", "/v1/send", { key, body: { to, text: "hi" }, headers: { "idempotency-key": "k".repeat(256) } }))).toEqual(
      invalid("Idempotency-Key: 1 to 255 characters"),
    );
    expect(reply(await gw.call("GET", "/v1/messages", { key }))).toEqual({ status: 200, body: { messages: [], nextCursor: null } });
  });
});

describe("send: delivery", () => {
  test("a retried request with the same Idempotency-Key answers the same message once; another body under it is 422", async () => {
    const { key } = await gw.project();
    await gw.pairedInstance(key, freshPhone());
    const to = freshPhone();
    const headers = { "idempotency-key": "order-1234-shipped" };
    const first = await gw.call("POST", "/v1/send", { key, body: { to, text: "Shipped" }, headers });
    expect(reply(first)).toEqual({ status: 202, body: { ...queuedBody(to, { type: "text", text: "Shipped" }, "order-1234-shipped") } });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    await untilState(gw, key, first.body.id, "delivered");
    const stored = await message(gw, key, first.body.id);
    const replayed = await gw.call("POST", "/v1/send", { key, body: { to, text: "Shipped" }, headers });
    expect(reply(replayed)).toEqual({ status: 202, body: stored });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(reply(await gw.call("POST", "/v1/send", { key, body: { to, text: "Shipped!" }, headers }))).toEqual({
      status: 422,
      body: { error: { code: "idempotency_key_reused", message: "this Idempotency-Key was used for a different message; use a new key for a new message" } },
    });
    expect((await gw.phones.inbox(to)).filter((entry) => entry.messageId === first.body.id).length).toBe(1);
    expect((await gw.phones.inbox(to)).length).toBe(1);
    expect((await gw.call("GET", "/v1/messages", { key })).body.messages.length).toBe(1);
  });

  test("a message is delivered to the recipient's phone once, then read; its attempt is on record", async () => {
    const { key } = await gw.project();
    const number = freshPhone();
    const instanceId = await gw.pairedInstance(key, number);
    const to = freshPhone();
    const sent = await gw.call("POST", "/v1/send", { key, body: { to, text: "See you at 10" } });
    await untilState(gw, key, sent.body.id, "delivered");
    const inbox = await gw.phones.inbox(to);
    expect(inbox).toEqual([
      { networkId: sent.body.id, messageId: sent.body.id, from: number, content: { type: "text", text: "See you at 10" }, receivedAt: expect.any(Number), deliveredAt: expect.any(Number), readAt: null },
    ]);
    const delivered = {
      ...sent.body,
      state: "delivered",
      instanceId,
      attempts: 1,
      sentAt: expect.stringMatching(isoPattern),
      deliveredAt: expect.stringMatching(isoPattern),
      nextAttemptAt: null,
    };
    expect(reply(await gw.call("GET", `/v1/messages/${sent.body.id}`, { key }))).toEqual({ status: 200, body: delivered });

    await gw.phones.read(to, sent.body.id);
    await untilState(gw, key, sent.body.id, "read");
    expect(reply(await gw.call("GET", `/v1/messages/${sent.body.id}`, { key }))).toEqual({ status: 200, body: { ...delivered, state: "read", readAt: expect.stringMatching(isoPattern) } });

    const attempt = { id: expect.stringMatching(uuidPattern), messageId: sent.body.id, instanceId, replica: gw.gateway.ctx.replica, outcome: "accepted", error: null, startedAt: expect.stringMatching(isoPattern), finishedAt: expect.stringMatching(isoPattern) };
    expect(reply(await gw.call("GET", `/v1/sends?messageId=${sent.body.id}`, { key }))).toEqual({ status: 200, body: { sends: [attempt], nextCursor: null } });
    expect(reply(await gw.call("POST", `/v1/messages/${sent.body.id}/cancel`, { key }))).toEqual({
      status: 409,
      body: { error: { code: "not_cancellable", message: "the message is read; only a queued message can be cancelled" } },
    });
  });

  test("an image, a document and an audio message reach the recipient's phone byte for byte", async () => {
    const { key } = await gw.project();
    const number = freshPhone();
    await gw.pairedInstance(key, number);
    const to = freshPhone();
    const media = [
      { type: "image", mimeType: "image/png", dataBase64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString("base64"), caption: "<b>chart</b>" },
      { type: "document", mimeType: "application/pdf", dataBase64: base64Of(3_000), fileName: "invoice.pdf" },
      { type: "audio", mimeType: "audio/ogg", dataBase64: base64Of(1) },
    ] as const;
    const ids: string[] = [];
    for (const item of media) ids.push((await gw.call("POST", "/v1/send", { key, body: { to, media: item } })).body.id);
    for (const id of ids) await untilState(gw, key, id, "delivered");
    const inbox = await gw.phones.inbox(to);
    expect(inbox.map(({ messageId, from, content }) => ({ messageId, from, content }))).toEqual(
      media.map((item, index) => ({
        messageId: ids[index]!,
        from: number,
        content: { type: item.type, mimeType: item.mimeType, dataBase64: item.dataBase64, fileName: "fileName" in item ? item.fileName : null, caption: "caption" in item ? item.caption : null },
      })),
    );
  });

  test("a recipient keeps the number that last wrote to it while that number can send", async () => {
    const { key } = await gw.project();
    const numbers = [freshPhone(), freshPhone()];
    for (const number of numbers) await gw.pairedInstance(key, number);
    const recipients = [freshPhone(), freshPhone(), freshPhone(), freshPhone()];
    const ids: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const to of recipients) {
        const id = (await gw.call("POST", "/v1/send", { key, body: { to, text: `round ${round}` } })).body.id as string;
        await untilState(gw, key, id, "delivered");
        ids.push(id);
      }
    }
    const senders = await Promise.all(recipients.map(async (to) => new Set((await gw.phones.inbox(to)).map((received) => received.from))));
    expect(senders.map((from) => from.size)).toEqual([1, 1, 1, 1]);
    // Both numbers carry recipients: stickiness does not pile every conversation on one number.
    expect(new Set(senders.map((from) => [...from][0]))).toEqual(new Set(numbers));
    expect(ids.length).toBe(12);
  });

  test("a number whose sends are refused for good fails the message with the network's reason", async () => {
    const { key } = await gw.project();
    const number = freshPhone();
    const instanceId = await gw.pairedInstance(key, number);
    await gw.phones.refuse(number, "permanent", "this number is banned");
    const to = freshPhone();
    const sent = await gw.call("POST", "/v1/send", { key, body: { to, text: "Hello" } });
    await untilState(gw, key, sent.body.id, "failed");
    expect(reply(await gw.call("GET", `/v1/messages/${sent.body.id}`, { key }))).toEqual({
      status: 200,
      body: { ...sent.body, state: "failed", failure: "this number is banned", instanceId, attempts: 1, nextAttemptAt: null },
    });
    expect(reply(await gw.call("GET", `/v1/sends?messageId=${sent.body.id}`, { key }))).toEqual({
      status: 200,
      body: {
        sends: [{ id: expect.stringMatching(uuidPattern), messageId: sent.body.id, instanceId, replica: gw.gateway.ctx.replica, outcome: "refused", error: "this number is banned", startedAt: expect.stringMatching(isoPattern), finishedAt: expect.stringMatching(isoPattern) }],
        nextCursor: null,
      },
    });
    expect(await gw.phones.inbox(to)).toEqual([]);
  });

  test("refused for now, the message waits in the queue with its next attempt set", async () => {
    const { key } = await gw.project();
    const number = freshPhone();
    const instanceId = await gw.pairedInstance(key, number);
    await gw.phones.refuse(number, "transient", "the network is busy");
    const sent = await gw.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "Hello" } });
    // Claimed for the attempt it is `sending`; refused, it is back in the queue.
    await waitFor(async () => {
      const current = await message(gw, key, sent.body.id);
      return current.attempts === 1 && current.state === "queued";
    });
    const waiting = await message(gw, key, sent.body.id);
    expect(waiting).toEqual({ ...sent.body, state: "queued", failure: "the network is busy", instanceId, attempts: 1, nextAttemptAt: expect.stringMatching(isoPattern) });
    expect(Date.parse(waiting.nextAttemptAt)).toBeGreaterThan(Date.parse(waiting.createdAt));
    const sends = (await gw.call("GET", `/v1/sends?messageId=${sent.body.id}`, { key })).body.sends;
    expect(sends.map((row: { outcome: string; error: string }) => [row.outcome, row.error])).toEqual([["refused", "the network is busy"]]);
    expect(reply(await gw.call("POST", `/v1/messages/${sent.body.id}/cancel`, { key }))).toEqual({
      status: 200,
      body: { ...waiting, state: "cancelled", nextAttemptAt: null },
    });
  });

  test("cancel: 200 while queued, 409 once cancelled, 404 for another project's message or an unknown one", async () => {
    const owner = await gw.project();
    const stranger = await gw.project();
    const sent = await gw.call("POST", "/v1/send", { key: owner.key, body: { to: freshPhone(), text: "no number can send this yet" } });
    const notFound = { status: 404, body: { error: { code: "not_found", message: "message not found" } } };
    expect(reply(await gw.call("POST", `/v1/messages/${sent.body.id}/cancel`, { key: stranger.key }))).toEqual(notFound);
    expect(reply(await gw.call("GET", `/v1/messages/${sent.body.id}`, { key: stranger.key }))).toEqual(notFound);
    expect(reply(await gw.call("GET", `/v1/sends?messageId=${sent.body.id}`, { key: stranger.key }))).toEqual({ status: 200, body: { sends: [], nextCursor: null } });
    expect(reply(await gw.call("POST", "/v1/messages/0190aaaa-0000-7000-8000-000000000000/cancel", { key: owner.key }))).toEqual(notFound);
    const cancelled = await gw.call("POST", `/v1/messages/${sent.body.id}/cancel`, { key: owner.key });
    expect(reply(cancelled)).toEqual({ status: 200, body: { ...sent.body, state: "cancelled", nextAttemptAt: null } });
    expect(reply(await gw.call("POST", `/v1/messages/${sent.body.id}/cancel`, { key: owner.key }))).toEqual({
      status: 409,
      body: { error: { code: "not_cancellable", message: "the message is cancelled; only a queued message can be cancelled" } },
    });
    // A number paired afterwards does not send the cancelled message.
    const number = freshPhone();
    await gw.pairedInstance(owner.key, number);
    const after = await gw.call("POST", "/v1/send", { key: owner.key, body: { to: sent.body.to, text: "this one goes" } });
    await untilState(gw, owner.key, after.body.id, "delivered");
    expect((await gw.phones.inbox(sent.body.to)).map((entry) => entry.messageId)).toEqual([after.body.id]);
    expect((await message(gw, owner.key, sent.body.id)).state).toBe("cancelled");
  });

  test("sends page newest first and filter by message", async () => {
    const { key } = await gw.project();
    const instanceId = await gw.pairedInstance(key, freshPhone());
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const sent = await gw.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: `note ${index}` } });
      await untilState(gw, key, sent.body.id, "delivered");
      ids.push(sent.body.id);
    }
    const first = await gw.call("GET", "/v1/sends?limit=2", { key });
    expect(first.body.sends.map((row: { messageId: string }) => row.messageId)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).toBe(first.body.sends[1].id);
    const second = await gw.call("GET", `/v1/sends?limit=2&cursor=${first.body.nextCursor}`, { key });
    expect(second.body).toEqual({
      sends: [{ id: expect.stringMatching(uuidPattern), messageId: ids[0], instanceId, replica: gw.gateway.ctx.replica, outcome: "accepted", error: null, startedAt: expect.stringMatching(isoPattern), finishedAt: expect.stringMatching(isoPattern) }],
      nextCursor: null,
    });
    expect((await gw.call("GET", `/v1/sends?messageId=${ids[1]}`, { key })).body.sends).toEqual([first.body.sends[1]]);
    expect((await gw.call("GET", "/v1/sends?limit=201", { key })).status).toBe(400);
  });
});

describe("pool", () => {
  const poolEntry = (instanceId: string, phone: string, status: string, reason: string | null, until: unknown = null) => ({ instanceId, phone, label: phone, status, reason, until });

  test("ready, pending, disconnected after the connection drops (until a sweep reconnects), retired", async () => {
    const { key } = await gw.project();
    const readyPhone = freshPhone();
    const readyId = await gw.pairedInstance(key, readyPhone);
    const pendingPhone = freshPhone();
    const pendingId = (await gw.call("POST", "/v1/instances", { key, body: { phone: pendingPhone } })).body.id;
    const retiredPhone = freshPhone();
    const retiredId = await gw.pairedInstance(key, retiredPhone);
    const retired = await gw.call("POST", `/v1/instances/${retiredId}/retire`, { key });
    const pool = await gw.call("GET", "/v1/pool", { key });
    expect(reply(pool)).toEqual({
      status: 200,
      body: {
        ready: 1,
        numbers: [
          poolEntry(readyId, readyPhone, "ready", null),
          poolEntry(pendingId, pendingPhone, "pending", "not paired yet: connect it and scan the QR code"),
          poolEntry(retiredId, retiredPhone, "retired", `retired ${retired.body.retiredAt}`),
        ],
      },
    });

    await gw.phones.drop(readyPhone);
    await waitFor(async () => (await gw.call("GET", "/v1/pool", { key })).body.numbers[0].status !== "ready");
    const dropped = await gw.call("GET", "/v1/pool", { key });
    expect(dropped.body).toEqual({
      ready: 0,
      numbers: [poolEntry(readyId, readyPhone, "disconnected", "connection dropped by the simulated network"), pool.body.numbers[1], pool.body.numbers[2]],
    });
    await gw.sweep();
    await waitFor(async () => (await gw.call("GET", "/v1/pool", { key })).body.ready === 1);
    expect((await gw.call("GET", "/v1/pool", { key })).body).toEqual(pool.body);
  });

  test("a suspended project's numbers are suspended and send nothing; its key is refused meanwhile", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const instanceId = await gw.pairedInstance(project.key, phone);
    await gw.call("POST", `/v1/projects/${project.id}/disable`, { key: testRootKey });
    expect((await gw.call("GET", "/v1/pool", { key: project.key })).status).toBe(401);
    // The project's own key cannot read its pool while suspended, so the pool is read in-process.
    expect(await gw.gateway.ctx.views.pool(project.id) as unknown).toEqual({ ready: 0, numbers: [poolEntry(instanceId, phone, "suspended", "the project is suspended")] });
    await gw.call("POST", `/v1/projects/${project.id}/enable`, { key: testRootKey });
    expect((await gw.call("GET", "/v1/pool", { key: project.key })).body).toEqual({ ready: 1, numbers: [poolEntry(instanceId, phone, "ready", null)] });
  });

  test("rate_limited once a number sent its per-minute share; the rest waits in the queue", async () => {
    const limited = await startTestGateway({ GATEWAY_SENDS_PER_MINUTE: "2", GATEWAY_WARMUP_DAILY_CAPS: "off" });
    try {
      const { key } = await limited.project();
      const phone = freshPhone();
      const instanceId = await limited.pairedInstance(key, phone);
      const ids: string[] = [];
      for (let index = 0; index < 3; index += 1) ids.push((await limited.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: `burst ${index}` } })).body.id);
      await untilState(limited, key, ids[0]!, "delivered");
      await untilState(limited, key, ids[1]!, "delivered");
      expect((await message(limited, key, ids[2]!)).state).toBe("queued");
      const firstSentAt = Date.parse((await message(limited, key, ids[0]!)).sentAt);
      const pool = (await limited.call("GET", "/v1/pool", { key })).body;
      expect(pool).toEqual({ ready: 0, numbers: [poolEntry(instanceId, phone, "rate_limited", "2 sends in the last minute (limit 2)", expect.stringMatching(isoPattern))] });
      expect(Date.parse(pool.numbers[0].until) - firstSentAt).toBeGreaterThan(59_000);
      expect(Date.parse(pool.numbers[0].until) - firstSentAt).toBeLessThanOrEqual(60_000);
    } finally {
      await limited.close();
    }
  });

  test("warming_up once a newly paired number reached its first day's cap", async () => {
    const warming = await startTestGateway({ GATEWAY_WARMUP_DAILY_CAPS: "1" });
    try {
      const { key } = await warming.project();
      const phone = freshPhone();
      const instanceId = await warming.pairedInstance(key, phone);
      const first = await warming.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "first" } });
      const second = await warming.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "second" } });
      await untilState(warming, key, first.body.id, "delivered");
      expect((await message(warming, key, second.body.id)).state).toBe("queued");
      expect((await warming.call("GET", "/v1/pool", { key })).body).toEqual({
        ready: 0,
        numbers: [poolEntry(instanceId, phone, "warming_up", "day 1 of warm-up: 1 sends in 24 h (cap 1)", expect.stringMatching(isoPattern))],
      });
    } finally {
      await warming.close();
    }
  });
});

describe("usage", () => {
  test("counts sent, rejected, received, pending and dead for the project only", async () => {
    const own = await startTestGateway();
    // A webhook receiver that always fails, so the project's deliveries end as dead letters.
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("down for maintenance", { status: 500 }) });
    try {
      const { key } = await own.project(`http://127.0.0.1:${receiver.port}/hook`);
      const other = await own.project();
      const number = freshPhone();
      await own.pairedInstance(key, number);
      expect((await own.call("GET", "/v1/usage", { key })).body).toEqual({ sent: 0, rejected: 0, received: 0, pending: 0, dead: 0 });

      const delivered = await own.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "sent" } });
      await untilState(own, key, delivered.body.id, "delivered");
      await own.phones.sendFromPhone(freshPhone(), number, { text: "hello gateway" });
      await waitFor(async () => (await own.call("GET", "/v1/usage", { key })).body.received === 1);
      // Each failed attempt waits at most 6 h for the next; seven retries later the delivery is dead.
      for (let pass = 0; pass < 40; pass += 1) {
        const open = (await own.call("GET", "/v1/deliveries", { key })).body.deliveries.filter((delivery: { state: string }) => delivery.state !== "dead");
        if (open.length === 0) break;
        own.clock.advance(7 * 3_600_000);
        await own.sweep();
      }
      const deadLetters = (await own.call("GET", "/v1/deliveries?state=dead", { key })).body.deliveries;
      expect(deadLetters.map((delivery: { event: string }) => delivery.event).sort()).toEqual(["instance.paired", "message.delivered", "message.received"]);
      expect((await own.call("GET", "/v1/deliveries", { key })).body.deliveries.length).toBe(3);

      await own.phones.refuse(number, "permanent", "banned");
      const rejected = await own.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "rejected" } });
      await untilState(own, key, rejected.body.id, "failed");
      await own.phones.refuse(number, "transient", "busy");
      const pending = await own.call("POST", "/v1/send", { key, body: { to: freshPhone(), text: "pending" } });
      await waitFor(async () => {
        const current = await message(own, key, pending.body.id);
        return current.attempts === 1 && current.state === "queued";
      });

      expect(reply(await own.call("GET", "/v1/usage", { key }))).toEqual({ status: 200, body: { sent: 1, rejected: 1, received: 1, pending: 1, dead: 3 } });
      expect(reply(await own.call("GET", "/v1/usage", { key: other.key }))).toEqual({ status: 200, body: { sent: 0, rejected: 0, received: 0, pending: 0, dead: 0 } });
    } finally {
      await own.close();
      receiver.stop(true);
    }
  });
});
