// Session location is coarse (city, country) from the client address, and the address itself
// is never stored. Behind a trusted proxy the address comes from X-Forwarded-For.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { call } from "../helpers/client.ts";
import { strongPassword } from "../helpers/accounts.ts";

let proxied: TestService;
let direct: TestService;
beforeAll(async () => {
  proxied = await startTestService({ TRUST_PROXY: "true" });
  direct = await startTestService();
});
afterAll(async () => {
  await proxied.close();
  await direct.close();
});

async function signupFrom(service: TestService, forwardedFor: string): Promise<string> {
  const reply = await call(service.url, "POST", "/app/auth/signup", {
    body: { email: `geo-${crypto.randomUUID()}@example.com`, name: "Geo", password: strongPassword },
    headers: { "x-forwarded-for": forwardedFor },
  });
  expect(reply.status).toBe(201);
  const cookie = reply.headers.get("set-cookie")!.split(";")[0]!;
  const sessions = await call(service.url, "GET", "/app/auth/sessions", { headers: { cookie } });
  return sessions.body.sessions[0].location;
}

test("behind a trusted proxy: city and country from the first X-Forwarded-For hop", async () => {
  expect(await signupFrom(proxied, "39.32.0.1, 10.0.0.1")).toBe("Rawalpindi, PK");
  expect(await signupFrom(proxied, "8.8.8.8")).toBe("US");
  for (const name of ["control.sqlite", "control.sqlite-wal"]) {
    const path = join(proxied.dataDir, name);
    if (existsSync(path)) expect(readFileSync(path).includes(Buffer.from("39.32.0.1"))).toBe(false);
  }
  expect(readFileSync(join(proxied.dataDir, "control.sqlite-wal")).includes(Buffer.from("Rawalpindi, PK"))).toBe(true);
  const db = new Database(join(proxied.dataDir, "control.sqlite"), { readonly: true });
  const columns = (db.query("PRAGMA table_info(sessions)").all() as { name: string }[]).map((c) => c.name);
  db.close();
  expect(columns).toEqual(["id", "user_id", "token_hash", "created_at", "expires_at", "last_seen_at", "revoked_at", "location", "user_agent"]);
});

test("without TRUST_PROXY the header is ignored and the socket address (loopback) has no location", async () => {
  expect(await signupFrom(direct, "39.32.0.1")).toBeNull();
});
