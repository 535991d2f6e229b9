// The web console served by the one process: every console path (and each emailed link)
// answers the HTML shell, assets are hashed, gzipped and cached for good, every console answer
// carries the security headers, and the API namespaces answer exactly as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { assetCacheControl, shellCacheControl } from "../../server/console/console-surface.ts";
import { signUp } from "../helpers/accounts.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers, redirect: "manual" });

const securityHeaders = () => ({
  "content-security-policy": `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self' ${service.url}; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
});
/** What a test compares of an answer: `more` (status, path, …) and the named headers. */
const answerOf = (response: Response, names: string[], more: Record<string, unknown>): Record<string, unknown> => ({
  ...more,
  ...Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
});

async function expectShell(path: string): Promise<string> {
  const response = await get(path);
  expect(answerOf(response, ["content-type", "cache-control", ...Object.keys(securityHeaders())], { path, status: response.status })).toEqual({
    path,
    status: 200,
    "content-type": "text/html; charset=utf-8",
    "cache-control": shellCacheControl,
    ...securityHeaders(),
  });
  return response.text();
}

/** The files the shell names: stylesheet, module preloads, classic and module scripts. */
const assetsNamedBy = (shell: string) => [...shell.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);

describe("pages", () => {
  test("/ and every console path answer the same shell, which holds no inline script or style", async () => {
    const shell = await expectShell("/");
    for (const path of ["/login", "/signup?next=%2F", "/forgot-password", "/projects/new", "/projects/0193a0b1-0000-7000-8000-000000000000/setup", "/no/such/page"]) {
      expect(await expectShell(path)).toBe(shell);
    }
    expect(shell).toContain('<div id="app"></div>');
    expect([...shell.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)]).toEqual([]);
    expect(shell).not.toMatch(/<style|\sstyle=/);
    expect(assetsNamedBy(shell).map((path) => path.replace(/-[a-z0-9]{8}\./, "-<hash>."))).toEqual([
      "/assets/console-<hash>.css",
      "/assets/theme-boot-<hash>.js",
      "/assets/main-<hash>.js",
    ]);
  });

  test("the links in the emails (confirm, reset, invitation) open console pages", async () => {
    const owner = await signUp(service, "Mail Reader");
    expect((await owner.client.post("/app/auth/password-reset", { email: owner.email })).status).toBe(202);
    expect((await owner.client.post(`/app/orgs/${owner.orgId}/invitations`, { email: "guest@example.com", role: "member" })).status).toBe(201);
    const links = [service.lastMail(owner.email, "verify_email"), service.lastMail(owner.email, "password_reset"), service.lastMail("guest@example.com", "invitation")].map(({ link }) => link);
    expect(links.map((link) => link.replace(/token=\w+$/, "token=…"))).toEqual([
      `${service.url}/verify-email?token=…`,
      `${service.url}/reset-password?token=…`,
      `${service.url}/invitations/accept?token=…`,
    ]);
    for (const link of links) await expectShell(link.slice(service.url.length));
  });

  test("HEAD answers the shell's headers without a body", async () => {
    const response = await fetch(`${service.url}/login`, { method: "HEAD" });
    expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([200, "text/html; charset=utf-8", ""]);
  });
});

describe("assets", () => {
  test("each file the shell names is served with its type, cached immutable, gzipped for clients that take gzip", async () => {
    const shell = await expectShell("/");
    for (const path of assetsNamedBy(shell)) {
      const plain = await get(path, { "accept-encoding": "identity" });
      const zipped = await fetch(`${service.url}${path}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
      const type = path.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
      for (const [response, encoding] of [[plain, null], [zipped, "gzip"]] as const) {
        expect(answerOf(response, ["content-type", "cache-control", "content-encoding", "vary", ...Object.keys(securityHeaders())], { path, status: response.status })).toEqual({
          path,
          status: 200,
          "content-type": type,
          "cache-control": assetCacheControl,
          "content-encoding": encoding,
          vary: "Accept-Encoding",
          ...securityHeaders(),
        });
      }
      const body = new Uint8Array(await plain.arrayBuffer());
      expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer()))).toEqual(Buffer.from(body));
    }
    expect(assetCacheControl).toBe("public, max-age=31536000, immutable");
  });

  test("an unknown asset is a plain 404 with the security headers, never the shell", async () => {
    const response = await get("/assets/main-00000000.js");
    expect(answerOf(response, ["content-type", ...Object.keys(securityHeaders())], { status: response.status, body: await response.text() })).toEqual({
      status: 404,
      body: "No such asset.",
      "content-type": "text/plain; charset=utf-8",
      ...securityHeaders(),
    });
  });
});

describe("the APIs are untouched", () => {
  const noSuchRoute = { error: { code: "not_found", message: "no such route" } };

  test("unknown paths under the control plane's namespaces answer its JSON 404", async () => {
    for (const path of ["/app", "/app/nope", "/app/verify-email", "/v1/nope", "/.well-known/nope", "/openapi.json/nope"]) {
      const response = await get(path);
      expect({ path, status: response.status, type: response.headers.get("content-type"), body: await response.json() }).toEqual({ path, status: 404, type: "application/json", body: noSuchRoute });
    }
  });

  test("writes to console paths are not pages: the control plane answers them", async () => {
    const response = await fetch(`${service.url}/login`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect([response.status, await response.json()]).toEqual([404, noSuchRoute]);
  });

  test("the documents, health, region and ingest answer as JSON", async () => {
    for (const path of ["/health", "/openapi.json", "/.well-known/jwks.json", "/app/regions", "/region/eu/health", "/ingest/eu/health"]) {
      const response = await get(path);
      expect({ path, status: response.status, type: response.headers.get("content-type") }).toEqual({ path, status: 200, type: "application/json" });
    }
    for (const path of ["/region/eu/nope", "/region/zz/nope", "/ingest/eu/nope", "/ingest/zz/e"]) {
      const response = await get(path);
      expect({ path, status: response.status, type: response.headers.get("content-type") }).toEqual({ path, status: 404, type: "application/json" });
    }
  });
});
