// The mail API's tenants and keys: the root key makes tenants (each with a full-access key
// shown once); a full-access key mints, lists and revokes keys; a sending key can only send;
// every refusal of a key is the same 401; another tenant's key is 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mailRootKey, startTestMail, type TestMail } from "./harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMail();
});
afterAll(async () => {
  await mail.close();
});

const unauthorized = { status: 401, body: { error: { code: "unauthorized", message: "missing or invalid API key (send it as Authorization: Bearer <key>)" } } };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

test("the root key makes a tenant with a full-access key, shown once", async () => {
  const created = await mail.call("POST", "/v1/tenants", { key: mailRootKey, body: { name: " Acme " } });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    tenant: { id: expect.any(String), name: "Acme", plan: "free", created_at: iso },
    api_key: { id: expect.any(String), name: "default", permission: "full_access", domain_id: null, last4: created.body.api_key.token.slice(-4), state: "active", created_at: iso, revoked_at: null, token: expect.stringMatching(/^mk_live_[0-9A-Za-z]{40}$/) },
  });
  const listed = await mail.call("GET", "/v1/api-keys", { key: created.body.api_key.token });
  const { token: _token, ...shown } = created.body.api_key;
  expect(listed.body.data).toEqual([shown]);
  expect((await mail.call("GET", `/v1/tenants/${created.body.tenant.id}`, { key: mailRootKey })).body).toEqual(created.body.tenant);
  expect((await mail.call("POST", "/v1/tenants", { key: mailRootKey, body: { name: "" } })).status).toBe(400);
  expect((await mail.call("GET", "/v1/tenants/nope", { key: mailRootKey })).body).toEqual({ error: { code: "not_found", message: "tenant not found" } });
});

test("a full-access key mints a sending key (for one domain or any), lists and revokes; a revoked key is refused like any other", async () => {
  const tenant = await mail.tenant();
  const sending = await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { name: "backend", permission: "sending_access" } });
  expect(sending.status).toBe(201);
  expect(sending.body).toMatchObject({ name: "backend", permission: "sending_access", domain_id: null, state: "active" });
  // A sending key sends only: the other routes answer 403 saying so.
  expect((await mail.call("GET", "/v1/domains", { key: sending.body.token })).body).toEqual({
    error: { code: "forbidden", message: "this key has sending access only: it can send emails (POST /v1/emails) and nothing else" },
  });
  expect((await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { permission: "full_access", domain_id: "x" } })).body).toEqual({
    error: { code: "validation", message: "domain_id: only a sending_access key is restricted to a domain" },
  });
  expect((await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { permission: "sending_access", domain_id: "nope" } })).status).toBe(404);
  const revoked = await mail.call("DELETE", `/v1/api-keys/${sending.body.id}`, { key: tenant.key });
  expect(revoked.body).toMatchObject({ id: sending.body.id, state: "revoked", revoked_at: iso });
  const afterRevoke = await mail.call("GET", "/v1/domains", { key: sending.body.token });
  expect({ status: afterRevoke.status, body: afterRevoke.body }).toEqual(unauthorized);
  // Another tenant's key is 404, as an unknown one.
  const other = await mail.tenant("Other");
  expect((await mail.call("DELETE", `/v1/api-keys/${sending.body.id}`, { key: other.key })).body).toEqual({ error: { code: "not_found", message: "api key not found" } });
});

test("missing, unknown, malformed and wrong-kind keys get one 401, before any 400", async () => {
  const tenant = await mail.tenant();
  const cases: [string, string, Record<string, string>][] = [
    ["POST", "/v1/tenants", {}],
    ["POST", "/v1/tenants", { authorization: "Bearer mk_live_unknown" }],
    ["POST", "/v1/tenants", { authorization: `Bearer ${tenant.key}` }],
    ["POST", "/v1/tenants", { authorization: mailRootKey }],
    ["GET", "/v1/domains", { authorization: `Bearer ${mailRootKey}` }],
    ["GET", "/v1/domains", { authorization: "Basic abc" }],
    ["POST", "/v1/domains", {}],
    ["POST", "/v1/api-keys", { authorization: "Bearer " }],
  ];
  for (const [method, path, headers] of cases) {
    const response = await fetch(mail.url + path, { method, headers: { ...headers, "content-type": "application/json" }, body: method === "POST" ? "{not json" : undefined });
    expect({ status: response.status, body: await response.json() }).toEqual(unauthorized);
  }
});
