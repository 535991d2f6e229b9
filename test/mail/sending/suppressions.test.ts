// The suppression list's routes: add by hand (bare addresses only, once), read one (any case,
// URL-encoded), list newest first by reason with a cursor, remove; every refusal with its body;
// another tenant's list is its own; a sending key may not touch it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { minuteMs } from "../../../server/clock.ts";
import { startTestMail, type TestMail } from "../harness.ts";

let mail: TestMail;
let key: string;
beforeAll(async () => {
  mail = await startTestMail();
  key = (await mail.tenant()).key;
});
afterAll(async () => {
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });
const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const manual = (address: string, detail: string | null = null) => ({ address, reason: "manual", email_id: null, bounce_class: null, detail, created_at: iso });

test("add, read, list and remove addresses by hand", async () => {
  expect(answer(await mail.call("POST", "/v1/suppressions", { key, body: { address: "Old@Example.NET", detail: "  asked to stop  " } }))).toEqual({ status: 201, body: manual("old@example.net", "asked to stop") });
  mail.clock.advance(minuteMs);
  const added = await mail.call("POST", "/v1/suppressions", { key, body: { address: "a%25b+c&d@example.net" } });
  expect(added.status).toBe(201);
  mail.clock.advance(minuteMs);
  expect((await mail.call("POST", "/v1/suppressions", { key, body: { address: "third@example.net" } })).status).toBe(201);

  const quoted = added.body.address as string;
  expect(answer(await mail.call("GET", `/v1/suppressions/${encodeURIComponent(quoted)}`, { key }))).toEqual({ status: 200, body: manual(quoted) });
  expect(answer(await mail.call("GET", `/v1/suppressions/${encodeURIComponent("OLD@example.net")}`, { key }))).toEqual({ status: 200, body: manual("old@example.net", "asked to stop") });

  const first = await mail.call("GET", "/v1/suppressions?limit=2", { key });
  expect(first.body).toEqual({ data: [manual("third@example.net"), manual(quoted)], next_cursor: quoted });
  const second = await mail.call("GET", `/v1/suppressions?limit=2&cursor=${encodeURIComponent(quoted)}`, { key });
  expect(second.body).toEqual({ data: [manual("old@example.net", "asked to stop")], next_cursor: null });
  expect((await mail.call("GET", "/v1/suppressions?reason=hard_bounce", { key })).body).toEqual({ data: [], next_cursor: null });

  expect(answer(await mail.call("DELETE", `/v1/suppressions/${encodeURIComponent(quoted)}`, { key }))).toEqual({ status: 200, body: { address: quoted, deleted: true } });
  expect(answer(await mail.call("DELETE", `/v1/suppressions/${encodeURIComponent(quoted)}`, { key }))).toEqual(refusal(404, "not_found", "suppression not found"));
  expect(quoted).toBe("a%25b+c&d@example.net");
});

test("refusals: a second add, a display name, not an address, unknown fields, a long detail; other tenants and sending keys", async () => {
  await mail.call("POST", "/v1/suppressions", { key, body: { address: "twice@example.net" } });
  expect(answer(await mail.call("POST", "/v1/suppressions", { key, body: { address: "TWICE@example.net" } }))).toEqual(refusal(409, "already_suppressed", "twice@example.net is already on the suppression list"));
  expect(answer(await mail.call("POST", "/v1/suppressions", { key, body: { address: "Bob <bob@example.net>" } }))).toEqual(refusal(422, "invalid_address", "address: give the bare address, without a display name"));
  expect(answer(await mail.call("POST", "/v1/suppressions", { key, body: { address: "bob" } }))).toEqual(refusal(422, "invalid_address", "address: the address has no @"));
  expect(answer(await mail.call("POST", "/v1/suppressions", { key, body: { address: "bob@example.net", reason: "hard_bounce" } }))).toEqual(refusal(400, "validation", expect.stringMatching(/^body/) as unknown as string));
  expect((await mail.call("POST", "/v1/suppressions", { key, body: { address: "long@example.net", detail: "x".repeat(500) } })).status).toBe(201);
  expect((await mail.call("POST", "/v1/suppressions", { key, body: { address: "longer@example.net", detail: "x".repeat(501) } })).status).toBe(400);
  expect((await mail.call("GET", "/v1/suppressions?reason=spam", { key })).status).toBe(400);

  const other = await mail.tenant("Other");
  expect(answer(await mail.call("GET", "/v1/suppressions/twice@example.net", { key: other.key }))).toEqual(refusal(404, "not_found", "suppression not found"));
  expect((await mail.call("GET", "/v1/suppressions", { key: other.key })).body).toEqual({ data: [], next_cursor: null });
  const sending = await mail.call("POST", "/v1/api-keys", { key, body: { permission: "sending_access" } });
  expect(answer(await mail.call("DELETE", "/v1/suppressions/twice@example.net", { key: sending.body.token }))).toEqual(
    refusal(403, "forbidden", "this key has sending access only: it can send emails (POST /v1/emails) and nothing else"),
  );
  expect((await mail.call("GET", "/v1/suppressions", {})).status).toBe(401);
});
