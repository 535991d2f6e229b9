// Public documents other than /openapi.json (test/control/contract/openapi.test.ts): OAuth
// metadata, health and how the surfaces are mounted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { call } from "../helpers/client.ts";
import { allScopes } from "../../server/control/auth/scopes.ts";

let service: TestService;
beforeAll(async () => { service = await startTestService(); });
afterAll(async () => { await service.close(); });

describe("OAuth metadata", () => {
  test("authorization-server metadata (RFC 8414) is public and advertises exactly what exists", async () => {
    const reply = await call(service.url, "GET", "/.well-known/oauth-authorization-server");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      issuer: service.url,
      authorization_endpoint: `${service.url}/oauth/authorize`,
      token_endpoint: `${service.url}/oauth/token`,
      registration_endpoint: `${service.url}/oauth/register`,
      revocation_endpoint: `${service.url}/oauth/revoke`,
      jwks_uri: `${service.url}/.well-known/jwks.json`,
      scopes_supported: allScopes,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${service.url}/openapi.json`,
    });
    expect(allScopes).toHaveLength(38);
  });

  test("protected-resource metadata for /v1 (RFC 9728)", async () => {
    const reply = await call(service.url, "GET", "/.well-known/oauth-protected-resource/v1");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      resource: `${service.url}/v1`,
      authorization_servers: [service.url],
      jwks_uri: `${service.url}/.well-known/jwks.json`,
      scopes_supported: allScopes,
      bearer_methods_supported: ["header"],
      resource_name: "svc-analytics programmatic API",
      resource_documentation: `${service.url}/openapi.json`,
    });
  });
});

describe("health and mounting", () => {
  test("GET /health checks global and every region, and says what the query caches hold", async () => {
    const reply = await call(service.url, "GET", "/health");
    expect([reply.status, reply.body]).toEqual([
      200,
      {
        status: "ok",
        checks: { global: "ok", "region:eu": "ok", "region:us": "ok", "region:me": "ok", "region:pk": "ok" },
        caches: { results: { entries: 0, bytes: 0, bytes_max: 64 * 1024 * 1024 }, columns: { entries: 0, bytes: 0, bytes_max: 512 * 1024 * 1024 } },
      },
    ]);
  });

  test("GET /health is 503 when a check fails", async () => {
    const broken = await startTestService({ REGIONS: "eu,us" });
    try {
      await broken.nodes.get("us")!.close();
      const reply = await call(broken.url, "GET", "/health");
      expect([reply.status, reply.body.status, reply.body.checks]).toEqual([
        503,
        "degraded",
        { global: "ok", "region:eu": "ok", "region:us": "error: Cannot use a closed database" },
      ]);
      const region = await call(broken.url, "GET", "/region/us/health");
      expect([region.status, region.body]).toEqual([503, { status: "degraded", checks: { "region:us": "error: Cannot use a closed database" } }]);
    } finally {
      await broken.close();
    }
  });

  test("each region answers /health on its region and ingest mounts", async () => {
    for (const code of ["eu", "us", "me", "pk"]) {
      const region = await call(service.url, "GET", `/region/${code}/health`);
      expect([region.status, region.body]).toEqual([200, { status: "ok", checks: { [`region:${code}`]: "ok" } }]);
      const ingest = await call(service.url, "GET", `/ingest/${code}/health`);
      expect([ingest.status, ingest.body]).toEqual([200, { status: "ok", checks: { [`region:${code}`]: "ok" } }]);
      expect(ingest.headers.get("access-control-allow-origin")).toBe("*");
      expect(ingest.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  test("a region that is not live is not mounted", async () => {
    const only = await startTestService({ REGIONS: "eu,pk" });
    try {
      expect((await call(only.url, "GET", "/health")).body.checks).toEqual({ global: "ok", "region:eu": "ok", "region:pk": "ok" });
      const missing = await call(only.url, "GET", "/region/us/health");
      expect([missing.status, missing.body]).toEqual([404, { error: { code: "not_found", message: "no such route" } }]);
    } finally {
      await only.close();
    }
  });

  test("ingest errors use the ingest shape and answer preflight with CORS", async () => {
    const preflight = await call(service.url, "OPTIONS", "/ingest/eu/batch");
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
    const unknown = await call(service.url, "GET", "/ingest/eu/nope");
    expect([unknown.status, unknown.body, unknown.headers.get("access-control-allow-origin")]).toEqual([404, { error: "no such route" }, "*"]);
  });

  test("unknown control-plane routes are 404 in the error shape", async () => {
    const reply = await call(service.url, "GET", "/v1/nope");
    expect([reply.status, reply.body]).toEqual([404, { error: { code: "not_found", message: "no such route" } }]);
  });
});
