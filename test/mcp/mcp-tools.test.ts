// Every MCP tool through the SDK's own client over the running service: whole answers on the
// seeded project, refusals naming the missing scope (also after the owner's role shrinks),
// tenancy (another project is not found), bad arguments, and event names that try to
// instruct the model coming back as JSON data only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { addMember, createToken } from "../helpers/accounts.ts";
import { isoPattern } from "../helpers/client.ts";
import { resultItemsMax, resultStringCharsMax } from "../../server/mcp/mcp-limits.ts";
import { tokenWritesPerMinuteMax } from "../../server/control/limits.ts";
import { auditLog } from "../../server/control/db/schema.ts";
import { eq } from "drizzle-orm";
import { callTool, hostileEventName, mcpClient, startMcpFixture, toolError, trendsQuery, type McpFixture } from "./fixture.ts";

let f: McpFixture;
/** Holds every scope a tool checks. */
let client: Client;
let tokenId: string;
const allToolScopes = ["projects:read", "query:read", "sql.raw", "insights:write", "dashboards:read", "flags:read", "experiments:read"];
const iso = expect.stringMatching(isoPattern);

beforeAll(async () => {
  f = await startMcpFixture();
  const token = await createToken(f.owner, allToolScopes);
  tokenId = token.token.id;
  client = await mcpClient(f.service, token.secret);
});

afterAll(async () => {
  await client.close();
  await f.service.close();
});

const projectArgs = () => ({ project_id: f.project.id });

test("tools/list: every tool with its title, scope, bounded input schema and hints", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint, tool.description!.match(/Needs scope (\S+)\.$/)?.[1]])).toEqual([
    ["list_projects", true, "projects:read"],
    ["describe_schema", true, "query:read"],
    ["run_query", true, "query:read"],
    ["run_sql", true, "sql.raw"],
    ["list_insights", true, "insights:read"],
    ["get_insight", true, "insights:read"],
    ["create_insight", false, "insights:write"],
    ["list_dashboards", true, "dashboards:read"],
    ["get_dashboard", true, "dashboards:read"],
    ["list_flags", true, "flags:read"],
    ["evaluate_flag", true, "flags:read"],
    ["list_experiments", true, "experiments:read"],
    ["get_experiment_results", true, "experiments:read"],
  ]);
  const runSql = tools.find((tool) => tool.name === "run_sql")!;
  expect(runSql.inputSchema).toEqual({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      project_id: { type: "string", minLength: 1, maxLength: 200, description: "The project's id, from list_projects." },
      environment: { type: "string", minLength: 1, maxLength: 200, description: 'The environment (default "production").' },
      sql: { type: "string", minLength: 1, maxLength: 60000, description: "One SELECT statement." },
      params: {
        type: "array",
        maxItems: 100,
        items: { anyOf: [{ type: "string", maxLength: 60000 }, { type: "number" }, { type: "boolean" }, { type: "null" }] },
        description: "Values of $1, $2, … in order.",
      },
    },
    required: ["project_id", "sql"],
  });
});

describe("happy paths", () => {
  test("list_projects: the token's projects with their environments", async () => {
    const project = (row: any) => ({
      id: row.id, name: row.name, region: "eu", timezone: "UTC", currency: "USD", environments: ["production", "staging", "development"], role: "owner",
    });
    expect(await callTool(client, "list_projects")).toEqual({ isError: false, body: { projects: [project(f.project), project(f.otherProject)] } });
  });

  test("describe_schema: events, event properties and person properties, most used first, the hostile name as data", async () => {
    const seen = (volume: number) => ({ volume, first_seen: iso, last_seen: iso });
    expect(await callTool(client, "describe_schema", projectArgs())).toEqual({
      isError: false,
      body: {
        project_id: f.project.id,
        environment: "production",
        events: [
          { name: "$feature_flag_called", ...seen(8) },
          { name: "purchase_completed", ...seen(5) },
          { name: "page_viewed", ...seen(3) },
          { name: hostileEventName, ...seen(1) },
        ],
        event_properties: [
          { key: "$feature_flag", type: "text", ...seen(8) },
          { key: "$feature_flag_response", type: "text", ...seen(8) },
          { key: "plan", type: "text", ...seen(5) },
          { key: "path", type: "text", ...seen(4) },
        ],
        person_properties: [{ key: "plan", type: "text", persons: 2 }, { key: "age", type: "number", persons: 1 }],
        persons_sampled: 10,
      },
    });
    const onPageViews = await callTool(client, "describe_schema", { ...projectArgs(), event: "page_viewed" });
    expect(onPageViews.body.event_properties).toEqual([{ key: "path", type: "text", ...seen(3) }]);
  });

  test("run_query: the result and its SQL", async () => {
    expect(await callTool(client, "run_query", { ...projectArgs(), query: trendsQuery(f.day) })).toEqual({
      isError: false,
      body: {
        cached: false,
        result: { kind: "trends", interval: "day", time_zone: "UTC", buckets: [f.day], rows: [{ series: 0, event: "page_viewed", math: "total", values: [3], total: 3 }] },
        sql: expect.stringContaining("FROM stored_events e"),
        params: [`${f.day}T00:00:00.000Z`, new Date(Date.parse(f.day) + 86_400_000).toISOString(), "page_viewed"],
        computed_at: iso,
        rows_read: expect.any(Number),
      },
    });
    const withoutSql = await callTool(client, "run_query", { ...projectArgs(), query: trendsQuery(f.day), include_sql: false });
    expect(Object.keys(withoutSql.body).sort()).toEqual(["cached", "computed_at", "result", "rows_read"]);
  });

  test("run_sql: columns, types and rows, the hostile name as a value", async () => {
    const sql = "SELECT event, count(*) AS n FROM events WHERE event <> $1 GROUP BY ALL ORDER BY n DESC, event";
    expect(await callTool(client, "run_sql", { ...projectArgs(), sql, params: ["$feature_flag_called"] })).toEqual({
      isError: false,
      body: { columns: ["event", "n"], types: ["VARCHAR", "BIGINT"], rows: [["purchase_completed", 5], ["page_viewed", 3], [hostileEventName, 1]], truncated: false },
    });
  });

  test("list_insights and get_insight", async () => {
    const summary = { id: f.insight.id, name: "Page views", kind: "trends", description: "Every page view", tags: ["web"], favorited: false, updated_at: f.insight.updated_at };
    expect(await callTool(client, "list_insights", { ...projectArgs(), search: "page" })).toEqual({ isError: false, body: { insights: [summary], next_offset: null } });
    expect(await callTool(client, "list_insights", { ...projectArgs(), search: "nothing like it" })).toEqual({ isError: false, body: { insights: [], next_offset: null } });
    expect(await callTool(client, "get_insight", { ...projectArgs(), insight_id: f.insight.id })).toEqual({ isError: false, body: { insight: f.insight } });
  });

  test("list_dashboards and get_dashboard: tiles with their insight and the query to run", async () => {
    const { dashboard } = f;
    expect(await callTool(client, "list_dashboards", projectArgs())).toEqual({
      isError: false,
      body: {
        dashboards: [{ id: dashboard.id, name: "Traffic", is_home: false, tags: [], tile_count: 1, created_at: dashboard.created_at, updated_at: dashboard.updated_at, description: "How many come" }],
        next_offset: null,
      },
    });
    const [tile] = dashboard.tiles;
    expect(await callTool(client, "get_dashboard", { ...projectArgs(), dashboard_id: dashboard.id })).toEqual({
      isError: false,
      body: {
        dashboard: {
          ...dashboard,
          tiles: [{
            id: tile.id, kind: "insight", layout: tile.layout, body: null,
            insight: { id: f.insight.id, name: "Page views", kind: "trends", description: "Every page view", tags: ["web"], favorited: false, updated_at: f.insight.updated_at },
            query: trendsQuery(f.day), query_error: null,
          }],
        },
      },
    });
  });

  test("create_insight: saved with created_via api, then listed", async () => {
    const created = await callTool(client, "create_insight", { ...projectArgs(), name: "  Signups  ", query: trendsQuery(f.day, "signed_up"), tags: ["agent"] });
    expect(created).toEqual({
      isError: false,
      body: {
        insight: {
          id: expect.any(String), project_id: f.project.id, name: "Signups", created_via: "api", favorited: false, query: trendsQuery(f.day, "signed_up"),
          viz: { display: "line", show_legend: true, show_values: false, y_scale: "linear", stacked_percent: false },
          tags: ["agent"], created_at: iso, updated_at: iso, created_by: f.owner.userId, description: null,
        },
      },
    });
    const listed = await callTool(client, "list_insights", { ...projectArgs(), search: "signups" });
    expect(listed.body.insights.map((insight: { id: string }) => insight.id)).toEqual([created.body.insight.id]);
    const audited = f.service.ctx.db.select().from(auditLog).where(eq(auditLog.targetId, created.body.insight.id)).all();
    expect(audited.map((row) => [row.action, row.actorType, row.actorId, row.projectId])).toEqual([["insight.create", "token", tokenId, f.project.id]]);
  });

  test("list_flags and evaluate_flag", async () => {
    const listed = await callTool(client, "list_flags", projectArgs());
    expect(listed.isError).toBe(false);
    expect(listed.body.flags.map((flag: { key: string }) => flag.key)).toEqual(["checkout", "new-checkout"]);
    expect(listed.body.flags[1]).toEqual(f.flag);
    expect(await callTool(client, "evaluate_flag", { ...projectArgs(), flag_key: "new-checkout", distinct_id: "u1" })).toEqual({
      isError: false,
      body: {
        flag_key: "new-checkout", distinct_id: "u1", environment: "production",
        evaluation: { enabled: true, variant: null, payload: null, reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" } },
      },
    });
    expect(await callTool(client, "evaluate_flag", { ...projectArgs(), environment: "staging", flag_key: "new-checkout", distinct_id: "u1" })).toEqual({
      isError: false,
      body: {
        flag_key: "new-checkout", distinct_id: "u1", environment: "staging",
        evaluation: { enabled: false, variant: null, payload: null, reason: { code: "flag_disabled", condition_index: null, description: "Feature flag is disabled" } },
      },
    });
  });

  test("list_experiments and get_experiment_results", async () => {
    const listed = await callTool(client, "list_experiments", projectArgs());
    expect(listed).toEqual({ isError: false, body: { experiments: [{ ...f.experiment }] } });
    const results = await callTool(client, "get_experiment_results", { ...projectArgs(), experiment_id: f.experiment.id });
    expect(results.isError).toBe(false);
    expect(results.body.results.experiment_id).toBe(f.experiment.id);
    expect(results.body.results.stats.exposures).toEqual({ units_per_variant: { control: 4, test: 4 }, multiple_exposures: 0, total: 8 });
    expect(results.body.results.stats.metrics.purchase.variants).toEqual({ control: { units: 4, conversions: 2, value: 0.5 }, test: { units: 4, conversions: 3, value: 0.75 } });
  });
});

describe("refusals", () => {
  test("a token without sql.raw calling run_sql: a tool error naming the scope", async () => {
    const narrow = await mcpClient(f.service, (await createToken(f.owner, ["query:read"])).secret);
    expect(await callTool(narrow, "run_sql", { ...projectArgs(), sql: "SELECT 1" })).toEqual(toolError("missing_scope", "requires scope `sql.raw`"));
    expect(await callTool(narrow, "list_projects")).toEqual(toolError("missing_scope", "requires scope `projects:read`"));
    await narrow.close();
  });

  test("a member's insights:write token stops creating insights once the member is made a viewer", async () => {
    const member = await addMember(f.service, f.owner, "member");
    const writer = await mcpClient(f.service, (await createToken(member, ["insights:write"])).secret);
    const args = { ...projectArgs(), name: "By a member", query: trendsQuery(f.day) };
    expect((await callTool(writer, "create_insight", args)).isError).toBe(false);
    const members = (await f.owner.client.get(`/app/orgs/${f.owner.orgId}/members`)).body.members;
    const membership = members.find((row: { user_id: string }) => row.user_id === member.userId);
    expect((await f.owner.client.patch(`/app/orgs/${f.owner.orgId}/members/${membership.id}`, { role: "viewer" })).status).toBe(200);
    expect(await callTool(writer, "create_insight", args)).toEqual(toolError("missing_scope", "requires scope `insights:write`"));
    // Reading is what a viewer still holds.
    expect((await callTool(writer, "list_insights", projectArgs())).isError).toBe(false);
    await writer.close();
  });

  test(`${tokenWritesPerMinuteMax} insights a minute per token: the next is a rate_limited tool error`, async () => {
    const writer = await mcpClient(f.service, (await createToken(f.owner, ["insights:write"])).secret);
    const create = (n: number) => callTool(writer, "create_insight", { ...projectArgs(), name: `Burst ${n}`, query: trendsQuery(f.day) });
    for (let n = 1; n <= tokenWritesPerMinuteMax; n++) expect((await create(n)).isError).toBe(false);
    const refused = await create(tokenWritesPerMinuteMax + 1);
    expect(refused).toEqual({ isError: true, body: { error: { code: "rate_limited", message: expect.stringMatching(/^write limit per token exceeded; retry after \d+ s$/) } } });
    await writer.close();
  });

  test("a token limited to another project: this project is not found, by every tool", async () => {
    const limited = await mcpClient(f.service, (await createToken(f.owner, allToolScopes, { project_ids: [f.otherProject.id] })).secret);
    const notFound = toolError("not_found", "project not found");
    for (const [name, args] of [
      ["describe_schema", {}], ["run_query", { query: trendsQuery(f.day) }], ["run_sql", { sql: "SELECT 1" }], ["list_insights", {}],
      ["get_insight", { insight_id: f.insight.id }], ["create_insight", { name: "x", query: trendsQuery(f.day) }], ["list_dashboards", {}],
      ["get_dashboard", { dashboard_id: f.dashboard.id }], ["list_flags", {}], ["evaluate_flag", { flag_key: "new-checkout", distinct_id: "u1" }],
      ["list_experiments", {}], ["get_experiment_results", { experiment_id: f.experiment.id }],
    ] as const) {
      expect([name, await callTool(limited, name, { ...projectArgs(), ...args })]).toEqual([name, notFound]);
    }
    const visible = await callTool(limited, "list_projects");
    expect(visible.body.projects.map((project: { id: string }) => project.id)).toEqual([f.otherProject.id]);
    await limited.close();
  });

  test("another project's resources by id: not found", async () => {
    const other = { project_id: f.otherProject.id };
    expect(await callTool(client, "get_insight", { ...other, insight_id: f.insight.id })).toEqual(toolError("not_found", "insight not found"));
    expect(await callTool(client, "get_dashboard", { ...other, dashboard_id: f.dashboard.id })).toEqual(toolError("not_found", "dashboard not found"));
    expect(await callTool(client, "get_experiment_results", { ...other, experiment_id: f.experiment.id })).toEqual(toolError("not_found", "experiment not found"));
    expect(await callTool(client, "evaluate_flag", { ...other, flag_key: "new-checkout", distinct_id: "u1" })).toEqual(toolError("not_found", "flag not found"));
  });
});

describe("answers bounded for a model's context", () => {
  test(`${resultItemsMax} rows are answered whole; ${resultItemsMax + 1} are cut to ${resultItemsMax}, and the answer says so`, async () => {
    const rows = (count: number) => callTool(client, "run_sql", { ...projectArgs(), sql: "SELECT range AS n FROM range($1)", params: [count] });
    const whole = await rows(resultItemsMax);
    expect(whole.body.rows).toHaveLength(resultItemsMax);
    expect(whole.body.limits_applied).toBeUndefined();
    const cut = await rows(resultItemsMax + 1);
    expect(cut).toEqual({
      isError: false,
      body: {
        columns: ["n"], types: ["BIGINT"], rows: Array.from({ length: resultItemsMax }, (_, n) => [n]), truncated: false,
        limits_applied: {
          lists_cut: [{ path: "/rows", shown: resultItemsMax, total: resultItemsMax + 1 }], strings_cut: 0, values_too_deep: 0,
          note: `The answer was shortened: 1 list(s) cut to their first ${resultItemsMax} items. Narrow the request (filters, a shorter date range, LIMIT) to see the rest.`,
        },
      },
    });
  });

  test(`a string of ${resultStringCharsMax} characters comes whole; a longer one is cut`, async () => {
    const text = await callTool(client, "run_sql", { ...projectArgs(), sql: "SELECT repeat('x', $1) AS whole, repeat('y', $2) AS cut", params: [resultStringCharsMax, resultStringCharsMax + 1] });
    expect(text.body.rows).toEqual([["x".repeat(resultStringCharsMax), `${"y".repeat(resultStringCharsMax)}…`]]);
    expect(text.body.limits_applied.strings_cut).toBe(1);
  });
});

describe("bad arguments", () => {
  test("the SDK refuses arguments that break the input schema, naming the field", async () => {
    expect(await callTool(client, "run_sql", { ...projectArgs(), sql: 5 })).toEqual({
      isError: true, body: "MCP error -32602: Input validation error: Invalid arguments for tool run_sql: Invalid input: expected string, received number at sql",
    });
    const tooLong = await callTool(client, "evaluate_flag", { ...projectArgs(), flag_key: "k".repeat(201), distinct_id: "u1" });
    expect(tooLong).toEqual({ isError: true, body: expect.stringContaining("Too big: expected string to have <=200 characters") });
    const missing = await callTool(client, "get_insight", projectArgs());
    expect(missing).toEqual({ isError: true, body: expect.stringContaining("insight_id") });
  });

  test("a malformed project id, an unknown environment, an invalid Query IR document, a bad statement", async () => {
    expect(await callTool(client, "list_insights", { project_id: "not-a-uuid" })).toEqual(toolError("not_found", "project not found"));
    expect(await callTool(client, "describe_schema", { ...projectArgs(), environment: "qa" })).toEqual(toolError("validation", 'unknown environment "qa"'));
    const { date_range: _, ...undated } = trendsQuery(f.day);
    expect(await callTool(client, "run_query", { ...projectArgs(), query: undated })).toEqual(toolError("validation", "body /query/date_range: is required"));
    expect(await callTool(client, "create_insight", { ...projectArgs(), name: "Undated", query: undated })).toEqual(toolError("validation", "body /query/date_range: is required"));
    const badSql = await callTool(client, "run_sql", { ...projectArgs(), sql: "DELETE FROM events" });
    expect(badSql).toEqual(toolError("invalid_query", "Binder Error: Can only delete from base table"));
    expect(await callTool(client, "evaluate_flag", { ...projectArgs(), flag_key: "no-such-flag", distinct_id: "u1" })).toEqual(toolError("not_found", "flag not found"));
  });
});
