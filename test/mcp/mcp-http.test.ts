// /mcp over plain HTTP: the MCP authorization spec's 401 challenge naming the protected-resource
// metadata, that RFC 9728 document, CORS for browser clients, the stateless transport's 405 for
// GET and DELETE, and the request body limit at its edge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createToken, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { mcpRequestBodyBytesMax } from "../../server/mcp/mcp-limits.ts";
import { tokenCallsPerMinuteMax } from "../../server/control/limits.ts";

let service: TestService;
let owner: SignedUpUser;
let secret: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "MCP HTTP owner");
  secret = (await createToken(owner, ["projects:read"])).secret;
});

afterAll(async () => {
  await service.close();
});

const mcpHeaders = { Accept: "application/json, text/event-stream", "Content-Type": "application/json" };
const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const challenge = () => `Bearer realm="svc-analytics", resource_metadata="${service.url}/.well-known/oauth-protected-resource/mcp"`;
const unauthorized = (message: string) => ({ error: { code: "unauthorized", message } });

describe("authentication", () => {
  test("no Authorization header: 401 with the challenge naming the resource metadata", async () => {
    const reply = await call(service.url, "POST", "/mcp", { rawBody: JSON.stringify(listTools), headers: mcpHeaders });
    expect({ status: reply.status, body: reply.body, challenge: reply.headers.get("www-authenticate") }).toEqual({
      status: 401, body: unauthorized("bearer token required"), challenge: challenge(),
    });
  });

  test("an unknown, a malformed or a revoked token: 401 with the same challenge", async () => {
    const revoked = await createToken(owner, ["projects:read"]);
    expect((await owner.client.delete(`/app/tokens/${revoked.token.id}`)).status).toBe(204);
    for (const [authorization, message] of [
      [`Bearer svc_pat_${"x".repeat(40)}`, "token is invalid, expired or revoked"],
      ["Bearer svc_nothing", "unknown token"],
      [`Basic ${btoa("a:b")}`, "bearer token required"],
      [`Bearer ${revoked.secret}`, "token is invalid, expired or revoked"],
    ]) {
      const reply = await call(service.url, "POST", "/mcp", { rawBody: JSON.stringify(listTools), headers: { ...mcpHeaders, Authorization: authorization! } });
      expect({ status: reply.status, body: reply.body, challenge: reply.headers.get("www-authenticate") }).toEqual({ status: 401, body: unauthorized(message!), challenge: challenge() });
    }
  });

  test("GET and DELETE are authenticated too", async () => {
    for (const method of ["GET", "DELETE"]) {
      const reply = await call(service.url, method, "/mcp", { headers: { Accept: "text/event-stream" } });
      expect({ status: reply.status, challenge: reply.headers.get("www-authenticate") }).toEqual({ status: 401, challenge: challenge() });
    }
  });
});

test("GET /.well-known/oauth-protected-resource/mcp: the RFC 9728 document, without credentials", async () => {
  const reply = await call(service.url, "GET", "/.well-known/oauth-protected-resource/mcp");
  expect({ status: reply.status, body: reply.body, cors: reply.headers.get("access-control-allow-origin") }).toEqual({
    status: 200,
    body: {
      resource: `${service.url}/mcp`,
      authorization_servers: [service.url],
      scopes_supported: ["projects:read", "query:read", "insights:read", "dashboards:read", "flags:read", "experiments:read", "insights:write", "sql.raw"],
      bearer_methods_supported: ["header"],
      resource_name: "svc-analytics MCP server",
    },
    cors: "*",
  });
  const posted = await call(service.url, "POST", "/.well-known/oauth-protected-resource/mcp", { body: {} });
  expect({ status: posted.status, allow: posted.headers.get("allow") }).toEqual({ status: 405, allow: "GET, HEAD" });
});

test("CORS preflight: 204 allowing the MCP headers from any origin, without credentials", async () => {
  const response = await fetch(`${service.url}/mcp`, {
    method: "OPTIONS",
    headers: { Origin: "http://inspector.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version" },
  });
  expect({ status: response.status, headers: Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-"))) }).toEqual({
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version",
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
      "access-control-max-age": "86400",
    },
  });
});

test("stateless: GET (the SSE stream) and DELETE (ending a session) answer 405 Allow: POST", async () => {
  for (const method of ["GET", "DELETE"]) {
    const reply = await call(service.url, method, "/mcp", { headers: { ...bearer(secret), Accept: "text/event-stream" } });
    expect({ status: reply.status, allow: reply.headers.get("allow"), body: reply.body }).toEqual({
      status: 405, allow: "POST", body: { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this server is stateless and answers POST only" }, id: null },
    });
  }
});

test("a POST answers JSON with no session id, and the tools without any session", async () => {
  const reply = await call(service.url, "POST", "/mcp", { rawBody: JSON.stringify(listTools), headers: { ...mcpHeaders, ...bearer(secret) } });
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toBe("application/json");
  expect(reply.headers.get("mcp-session-id")).toBeNull();
  expect(reply.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
    "list_projects", "describe_schema", "run_query", "run_sql", "list_insights", "get_insight", "create_insight",
    "list_dashboards", "get_dashboard", "list_flags", "evaluate_flag", "list_experiments", "get_experiment_results",
  ]);
});

test(`request body: ${mcpRequestBodyBytesMax} bytes are read, one more is 413`, async () => {
  /** A tools/call whose padding makes the body exactly `bytes` long. */
  const bodyOf = (bytes: number) => {
    const empty = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_projects", arguments: {}, _meta: { pad: "" } } });
    return empty.replace('"pad":""', `"pad":"${"p".repeat(bytes - empty.length)}"`);
  };
  const post = (body: string) => call(service.url, "POST", "/mcp", { rawBody: body, headers: { ...mcpHeaders, ...bearer(secret) } });
  const atLimit = await post(bodyOf(mcpRequestBodyBytesMax));
  expect(atLimit.status).toBe(200);
  expect(atLimit.body.result.isError).toBeUndefined();
  const over = await post(bodyOf(mcpRequestBodyBytesMax + 1));
  expect({ status: over.status, body: over.body }).toEqual({
    status: 413, body: { jsonrpc: "2.0", error: { code: -32000, message: expect.stringContaining(String(mcpRequestBodyBytesMax)) }, id: null },
  });
});

test("a JSON-RPC batch is refused before any of its calls runs: each request is one call against the token's limit", async () => {
  const batch = Array.from({ length: 3 }, (_, index) => ({ jsonrpc: "2.0", id: index + 1, method: "tools/call", params: { name: "list_projects", arguments: {} } }));
  for (const body of [JSON.stringify(batch), ` \n${JSON.stringify(batch.slice(0, 1))}`]) {
    const refused = await call(service.url, "POST", "/mcp", { rawBody: body, headers: { ...mcpHeaders, "Mcp-Protocol-Version": "2025-03-26", ...bearer(secret) } });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: batches are not accepted; send one JSON-RPC message per request" }, id: null },
    });
  }
});

test(`${tokenCallsPerMinuteMax} requests a minute per token, counted with its /v1 calls: the last passes, the next is 429 with Retry-After`, async () => {
  const limited = (await createToken(owner, ["projects:read"])).secret;
  const post = () => call(service.url, "POST", "/mcp", { rawBody: JSON.stringify(listTools), headers: { ...mcpHeaders, ...bearer(limited) } });
  expect((await call(service.url, "GET", "/v1/me", { headers: bearer(limited) })).status).toBe(200);
  for (let request = 2; request <= tokenCallsPerMinuteMax; request++) expect((await post()).status).toBe(200);
  const refused = await post();
  expect({ status: refused.status, code: refused.body.error.code, retryAfter: Number(refused.headers.get("retry-after")) > 0 }).toEqual({ status: 429, code: "rate_limited", retryAfter: true });
});
