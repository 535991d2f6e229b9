// GET …/catalog/codegen on the console and on /v1 (scope catalog:read) over real HTTP
// (docs/catalog.md, "Codegen"): CatalogCodegenExport with every event but the unplanned ones,
// and `?format=typescript`, a .d.ts that `tsc --strict` compiles next to code using the plan
// correctly and refuses next to code misusing it, whatever the names and descriptions hold.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { nativeEvent, sendAccepted } from "../ingest/helpers.ts";

let service: TestService;
let owner: SignedUpUser;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu" });
  owner = await signUp(service, "Codegen owner");
});
afterAll(() => service.close());

const tsc = resolve(import.meta.dir, "../../node_modules/.bin/tsc");
const hostileEvent = `"; process.exit(1); // */ \\ \u2028 \${x} \``;
const hostileProperty = `*/ declare const pwned: 1; /* "'`;
const hostileDescription = "Ends a comment */ then code: declare const pwned: 1;\nSecond line /* nested";

async function catalog(name: string) {
  const created = await createProject(owner, name);
  const path = `/app/projects/${created.project.id}/catalog`;
  const add = async (body: Record<string, unknown>) => {
    const reply = await owner.client.post(`${path}/events`, body);
    expect([reply.status, reply.body.error]).toEqual([201, undefined]);
    return reply.body;
  };
  return { id: created.project.id, path, add, key: created.public_keys.find((key: { environment: string }) => key.environment === "production").key as string };
}

/** Type-checks `files` (name to source) with `tsc --noEmit --strict`: the error lines of each file (none: it compiles). */
function typeCheck(files: Record<string, string>): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), "codegen-"));
  try {
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
    const sources = Object.keys(files).filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"));
    const run = Bun.spawnSync([tsc, "--noEmit", "--strict", "--target", "es2022", "--pretty", "false", ...sources], { cwd: dir });
    const lines = run.stdout.toString().split("\n").filter(Boolean);
    return Object.fromEntries(Object.keys(files).map((name) => [name, lines.filter((line) => line.startsWith(`${name}(`))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("codegen", () => {
  let plan: Awaited<ReturnType<typeof catalog>>;

  beforeAll(async () => {
    plan = await catalog("Codegen");
    await plan.add({
      name: "order_completed", description: "A customer paid",
      properties: [
        { name: "plan", type: "string", enum_values: ["free", "pro"], required: true, description: "The plan bought" },
        { name: "amount_minor", type: "number", required: true },
        { name: "coupon", type: "string" },
        { name: "placed_at", type: "datetime" },
        { name: "gift", type: "boolean" },
        { name: "items", type: "array" },
        { name: "address", type: "object" },
        { name: "anything", type: "any" },
      ],
    });
    await plan.add({ name: "page_viewed" });
    const old = await plan.add({ name: "old_event", status: "implemented", description: "Replaced by order_completed" });
    await owner.client.patch(`${plan.path}/events/${old.id}`, { status: "deprecated" });
    await plan.add({ name: hostileEvent, description: hostileDescription, properties: [{ name: hostileProperty, type: "string", required: true, enum_values: [`a"b`, "c\\d", "*/", "\u2029"], description: hostileDescription }] });
    await plan.add({ name: "a-b" });
    await plan.add({ name: "a_b" });
    await plan.add({ name: "123 go" });
    await sendAccepted(service.url, plan.key, [nativeEvent({ event: "surprise_event", properties: { x: 1 } })]);
    expect((await owner.client.post(`${plan.path}/sync`)).body.unplanned).toEqual(["surprise_event"]);
  });

  test("JSON: the catalog version and every event but the unplanned ones, by name, properties in order", async () => {
    const reply = await owner.client.get(`${plan.path}/codegen`);
    const property = (name: string, type: string, more: Record<string, unknown> = {}) => ({ name, type, required: false, description: null, enum_values: null, ...more });
    expect([reply.status, reply.headers.get("content-type"), reply.body]).toEqual([200, "application/json", {
      catalog_version: 9, project_id: plan.id,
      events: [
        { name: hostileEvent, status: "planned", description: hostileDescription, properties: [property(hostileProperty, "string", { required: true, enum_values: [`a"b`, "c\\d", "*/", "\u2029"], description: hostileDescription })] },
        { name: "123 go", status: "planned", description: null, properties: [] },
        { name: "a-b", status: "planned", description: null, properties: [] },
        { name: "a_b", status: "planned", description: null, properties: [] },
        { name: "old_event", status: "deprecated", description: "Replaced by order_completed", properties: [] },
        {
          name: "order_completed", status: "planned", description: "A customer paid",
          properties: [
            property("plan", "string", { required: true, enum_values: ["free", "pro"], description: "The plan bought" }), property("amount_minor", "number", { required: true }),
            property("coupon", "string"), property("placed_at", "datetime"), property("gift", "boolean"), property("items", "array"), property("address", "object"), property("anything", "any"),
          ],
        },
        { name: "page_viewed", status: "planned", description: null, properties: [] },
      ],
    }]);
    const { secret } = await createToken(owner, ["catalog:read"]);
    const viaV1 = await v1(service, secret, "GET", `/v1/projects/${plan.id}/catalog/codegen`);
    expect([viaV1.status, viaV1.body]).toEqual([200, reply.body]);
    const explicit = await owner.client.get(`${plan.path}/codegen?format=json`);
    expect(explicit.body).toEqual(reply.body);
  });

  test("typescript: a .d.ts download that compiles with code using the plan correctly, and refuses each misuse", async () => {
    const reply = await owner.client.get(`${plan.path}/codegen?format=typescript`);
    expect([reply.status, reply.headers.get("content-type"), reply.headers.get("content-disposition")]).toEqual([
      200, "application/typescript; charset=utf-8", 'attachment; filename="tracking-plan.d.ts"',
    ]);
    const declarations: string = reply.body;
    expect(declarations).toContain("@deprecated Deprecated in the tracking plan.");
    expect(declarations).not.toContain("surprise_event");
    const header = 'import type { CatalogVersion, TrackingPlanEvent, TrackingPlanEventName, TrackingPlanEvents } from "./tracking-plan";\n'
      + "declare function track<Name extends TrackingPlanEventName>(event: Name, properties: TrackingPlanEvents[Name]): void;\n";
    const hostileCall = `track(${JSON.stringify(hostileEvent)}, { ${JSON.stringify(hostileProperty)}: "*/" });\n`;
    const files: Record<string, string> = {
      "tracking-plan.d.ts": declarations,
      "good.ts": header
        + 'track("order_completed", { plan: "pro", amount_minor: 1200 });\n'
        + 'track("order_completed", { plan: "free", amount_minor: 0, coupon: "X", placed_at: "2026-01-01T00:00:00Z", gift: true, items: [1, "a"], address: { city: "Oslo" }, anything: null });\n'
        + 'track("page_viewed", {});\n'
        + 'track("old_event", {});\n'
        + hostileCall
        + 'const version: CatalogVersion = 9;\n'
        + 'const event: TrackingPlanEvent = { event: "order_completed", properties: { plan: "pro", amount_minor: 1 } };\n'
        + "export { version, event };\n",
      "bad-enum.ts": `${header}track("order_completed", { plan: "enterprise", amount_minor: 1 });\n`,
      "bad-missing.ts": `${header}track("order_completed", { plan: "pro" });\n`,
      "bad-type.ts": `${header}track("order_completed", { plan: "pro", amount_minor: "12" });\n`,
      "bad-event.ts": `${header}track("not_in_plan", {});\n`,
      "bad-unplanned.ts": `${header}track("surprise_event", { x: 1 });\n`,
      "bad-extra.ts": `${header}track("page_viewed", { x: 1 });\n`,
      "bad-hostile-enum.ts": `${header}track(${JSON.stringify(hostileEvent)}, { ${JSON.stringify(hostileProperty)}: "ab" });\n`,
      "bad-version.ts": `${header}const version: CatalogVersion = 8;\nexport { version };\n`,
      "bad-pwned.ts": `import { pwned } from "./tracking-plan";\nexport const x = pwned;\n`,
    };
    const errors = typeCheck(files);
    expect(errors["tracking-plan.d.ts"]).toEqual([]);
    expect(errors["good.ts"]).toEqual([]);
    for (const name of Object.keys(files).filter((file) => file.startsWith("bad-"))) {
      expect([name, errors[name]!.length > 0]).toEqual([name, true]);
    }
  }, 60_000);

  test("typescript: the whole file for a small plan", async () => {
    const small = await catalog("Small codegen");
    await small.add({ name: "signed_up", description: "A person signed up", properties: [{ name: "plan", type: "string", enum_values: ["free", "pro"], required: true }, { name: "at", type: "datetime" }] });
    await small.add({ name: "$pageview" });
    const reply = await owner.client.get(`${small.path}/codegen?format=typescript`);
    expect(reply.body).toBe(`// The tracking plan of project ${small.id}, catalog version 2.
// Generated by svc-analytics (GET …/catalog/codegen?format=typescript): download it again rather than edit it.

/** The catalog version this file was generated from. */
export type CatalogVersion = 2;

export type PageviewProperties = Record<string, never>;

/**
 * A person signed up
 */
export interface SignedUpProperties {
  "plan": "free" | "pro";
  /**
   * An RFC 3339 date-time.
   */
  "at"?: string;
}

/** Every event of the tracking plan, by name, with the properties it carries. */
export interface TrackingPlanEvents {
  "$pageview": PageviewProperties;
  /**
   * A person signed up
   */
  "signed_up": SignedUpProperties;
}

export type TrackingPlanEventName = keyof TrackingPlanEvents;

/** An event as a capture call takes it: a name of the plan and its properties. */
export type TrackingPlanEvent = { [Name in TrackingPlanEventName]: { event: Name; properties: TrackingPlanEvents[Name] } }[TrackingPlanEventName];
`);
  });

  test("an empty plan still compiles; an unknown format is 400 on both surfaces", async () => {
    const empty = await catalog("Empty codegen");
    const reply = await owner.client.get(`${empty.path}/codegen?format=typescript`);
    expect(typeCheck({ "tracking-plan.d.ts": reply.body, "use.ts": 'import type { TrackingPlanEventName } from "./tracking-plan";\nexport const none: TrackingPlanEventName[] = [];\n' })).toEqual({
      "tracking-plan.d.ts": [], "use.ts": [],
    });
    const refused = await owner.client.get(`${empty.path}/codegen?format=yaml`);
    expect([refused.status, refused.body]).toEqual([400, { error: { code: "validation", message: "format must be json or typescript" } }]);
    const { secret } = await createToken(owner, ["catalog:read"]);
    const viaV1 = await v1(service, secret, "GET", `/v1/projects/${empty.id}/catalog/codegen?format=`);
    expect([viaV1.status, viaV1.body]).toEqual([400, { error: { code: "validation", message: "format must be json or typescript" } }]);
    const typescript = await v1(service, secret, "GET", `/v1/projects/${empty.id}/catalog/codegen?format=typescript`);
    expect([typescript.status, typescript.headers.get("content-type"), typescript.body]).toEqual([200, "application/typescript; charset=utf-8", reply.body]);
  }, 60_000);
});
