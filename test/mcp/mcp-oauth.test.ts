// The MCP authorization spec end to end with the SDK's own client: StreamableHTTPClientTransport
// with an OAuthClientProvider meets the 401, follows the protected-resource metadata to the
// authorization server, registers dynamically, sends the person to authorize with PKCE (the
// consent step taken through the console's session routes, as the consent page takes it),
// exchanges the code, and then lists the tools and calls each with the svc_oat_ token,
// refusals included.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { createToken } from "../helpers/accounts.ts";
import { call } from "../helpers/client.ts";
import { connect, registerApp } from "../control/oauth/oauth-client.ts";
import { callTool, mcpClient, startMcpFixture, toolError, trendsQuery, type McpFixture } from "./fixture.ts";

let f: McpFixture;
const callbackUrl = "http://127.0.0.1:53682/mcp-callback";

beforeAll(async () => {
  f = await startMcpFixture();
});

afterAll(async () => {
  await f.service.close();
});

/** What an MCP host keeps between runs, in memory; `authorizationUrl` is where it would open the browser. */
class TestOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  readonly stateValue = crypto.randomUUID();

  get redirectUrl() {
    return callbackUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "MCP test host", redirect_uris: [callbackUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const mcpUrl = () => new URL(`${f.service.url}/mcp`);

/** The person's part: open the authorization URL, approve `scopes` on the consent routes, and the callback's code (state checked). */
async function consent(provider: TestOAuthProvider, scopes: string[]): Promise<string> {
  const started = await fetch(provider.authorizationUrl!, { redirect: "manual" });
  const location = started.headers.get("location") ?? "";
  expect([started.status, location.startsWith("/consent/")]).toEqual([302, true]);
  const requestId = decodeURIComponent(location.slice("/consent/".length));
  const approved = await f.owner.client.post(`/app/oauth/authorizations/${requestId}/approve`, { org_id: f.owner.orgId, scopes });
  expect(approved.status).toBe(200);
  const callback = new URL(approved.body.redirect_to);
  expect(`${callback.origin}${callback.pathname}`).toBe(callbackUrl);
  expect(callback.searchParams.get("state")).toBe(provider.stateValue);
  return callback.searchParams.get("code")!;
}

const toolScopes = ["projects:read", "query:read", "insights:read", "insights:write", "dashboards:read", "flags:read", "experiments:read", "sql.raw"];

test("the SDK client authorizes through discovery, registration and PKCE, then uses every tool; sql.raw not approved is refused", async () => {
  const provider = new TestOAuthProvider();
  const first = new Client({ name: "mcp-oauth-test", version: "1.0.0" });
  const firstTransport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  // The 401 sends the SDK through discovery and registration to the person's browser.
  await expect(first.connect(firstTransport)).rejects.toBeInstanceOf(UnauthorizedError);
  // What the SDK found and asked for: registered here, for this resource, with the tools' scopes, S256.
  const asked = provider.authorizationUrl!;
  expect({
    endpoint: `${asked.origin}${asked.pathname}`,
    client: asked.searchParams.get("client_id"),
    resource: asked.searchParams.get("resource"),
    scope: asked.searchParams.get("scope")?.split(" ").sort(),
    method: asked.searchParams.get("code_challenge_method"),
    redirect: asked.searchParams.get("redirect_uri"),
  }).toEqual({
    endpoint: `${f.service.url}/oauth/authorize`,
    client: (provider.client as { client_id: string }).client_id,
    resource: `${f.service.url}/mcp`,
    scope: [...toolScopes].sort(),
    method: "S256",
    redirect: callbackUrl,
  });

  const code = await consent(provider, toolScopes.filter((scope) => scope !== "sql.raw"));
  await firstTransport.finishAuth(code);
  expect(provider.saved).toEqual({
    access_token: expect.stringMatching(/^svc_oat_/), token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^svc_ort_/),
    scope: "projects:read query:read insights:read dashboards:read flags:read experiments:read insights:write", issuer: f.service.url,
  });

  const client = new Client({ name: "mcp-oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  expect((await client.listTools()).tools).toHaveLength(13);
  const project = { project_id: f.project.id };
  const answers: Record<string, boolean> = {};
  for (const [name, args] of [
    ["list_projects", {}],
    ["describe_schema", project],
    ["run_query", { ...project, query: trendsQuery(f.day) }],
    ["list_insights", project],
    ["get_insight", { ...project, insight_id: f.insight.id }],
    ["create_insight", { ...project, name: "Through OAuth", query: trendsQuery(f.day) }],
    ["list_dashboards", project],
    ["get_dashboard", { ...project, dashboard_id: f.dashboard.id }],
    ["list_flags", project],
    ["evaluate_flag", { ...project, flag_key: "new-checkout", distinct_id: "u1" }],
    ["list_experiments", project],
    ["get_experiment_results", { ...project, experiment_id: f.experiment.id }],
  ] as const) {
    answers[name] = (await callTool(client, name, args)).isError;
  }
  expect(Object.keys(answers).filter((name) => answers[name])).toEqual([]);
  expect(await callTool(client, "run_sql", { ...project, sql: "SELECT 1" })).toEqual(toolError("missing_scope", "requires scope `sql.raw`"));
  const created = await callTool(client, "list_insights", { ...project, search: "Through OAuth" });
  expect(created.body.insights.map((insight: { name: string }) => insight.name)).toEqual(["Through OAuth"]);
  await client.close();
});

test("a token issued for /v1 only is refused at /mcp with the challenge; a personal access token is good on both", async () => {
  const app = await registerApp(f.service);
  const v1Only = await connect(app, f.owner, { scopes: ["projects:read"] });
  const reply = await call(f.service.url, "POST", "/mcp", {
    rawBody: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    headers: { Authorization: `Bearer ${v1Only.access_token}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
  });
  expect({ status: reply.status, body: reply.body, challenge: reply.headers.get("www-authenticate") }).toEqual({
    status: 401,
    body: { error: { code: "unauthorized", message: `token was not issued for ${f.service.url}/mcp` } },
    challenge: `Bearer realm="svc-analytics", resource_metadata="${f.service.url}/.well-known/oauth-protected-resource/mcp"`,
  });
  const pat = await mcpClient(f.service, (await createToken(f.owner, ["projects:read"])).secret);
  expect((await callTool(pat, "list_projects")).isError).toBe(false);
  await pat.close();
});
