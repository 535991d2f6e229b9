// The tracking plan by hand over real HTTP (spec 1: the console's catalog routes; docs/catalog.md):
// events with their properties created, read, listed, changed and deleted with whole-body
// answers; versions per event and per catalog; kinds from names; the status changes a person may
// make; dry runs that change nothing; the audit log; and every limit at its edge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { call, isoPattern, uuidPattern } from "../helpers/client.ts";
import { catalogEventsMax, catalogSearchLengthMax } from "../../server/control/catalog/catalog-events.ts";
import {
  catalogEventNameLengthMax, catalogPropertyNameLengthMax, descriptionLengthMax, displayNameLengthMax, enumValueLengthMax, enumValuesMax, exampleLengthMax,
  platformLengthMax, platformsPerEventMax, propertiesPerEventMax, questionLengthMax, tagLengthMax, tagsPerEventMax,
} from "../../server/control/catalog/catalog-schemas.ts";

let service: TestService;
let owner: SignedUpUser;
let projectId: string;
let base: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Catalog owner");
  projectId = (await createProject(owner, "Catalog")).project.id;
  base = `/app/projects/${projectId}/catalog`;
});
afterAll(() => service.close());

const time = expect.stringMatching(isoPattern);
const id = expect.stringMatching(uuidPattern);
const invalid = (message: string) => ({ error: { code: "validation", message } });

/** A fresh project's catalog path. */
async function freshCatalog(name = "Fresh"): Promise<string> {
  return `/app/projects/${(await createProject(owner, name)).project.id}/catalog`;
}

async function created(path: string, body: Record<string, unknown>) {
  const reply = await owner.client.post(`${path}/events`, body);
  expect([reply.status, reply.body?.error]).toEqual([201, undefined]);
  return reply.body;
}

const settings = async (path = base) => (await owner.client.get(`${path}/settings`)).body;

function auditRows(targetId: string): { action: string; actor_type: string; actor_id: string; target_type: string; before: unknown; after: unknown }[] {
  const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
  try {
    const rows = db.query("SELECT action, actor_type, actor_id, target_type, before, after FROM audit_log WHERE target_id = ? ORDER BY id").all(targetId) as any[];
    return rows.map((row) => ({ ...row, before: JSON.parse(row.before), after: JSON.parse(row.after) }));
  } finally {
    db.close();
  }
}

describe("an empty catalog", () => {
  test("lists nothing, reads as version 0 with warnings off, and exports no events", async () => {
    const path = await freshCatalog("Empty");
    const emptyProject = path.split("/")[3]!;
    expect(await owner.client.get(`${path}/events`)).toMatchObject({
      status: 200, body: { events: [], counts: { deprecated: 0, implemented: 0, planned: 0, unplanned: 0, verified: 0 } },
    });
    const read = await owner.client.get(`${path}/settings`);
    expect([read.status, read.body]).toEqual([200, { project_id: emptyProject, catalog_version: 0, warn_on_violations: false, synced_at: null, region_synced: true }]);
    const exported = await owner.client.get(`${path}/codegen`);
    expect([exported.status, exported.body]).toEqual([200, { catalog_version: 0, project_id: emptyProject, events: [] }]);
  });
});

describe("events by hand", () => {
  let event: any;

  test("POST creates an event with its properties in order: 201 with the whole event, version 1, the catalog's version raised", async () => {
    const body = {
      name: "order_completed",
      description: "A customer paid for an order",
      display_name: "Order completed",
      owner_id: owner.userId,
      pii_level: "low",
      platforms: ["web", "ios"],
      properties: [
        { name: "plan", type: "string", enum_values: ["free", "pro"], required: true, description: "The plan bought", example: "pro" },
        { name: "amount_minor", type: "number", required: true },
        { name: "email", type: "string", pii: true },
      ],
      question: "How many orders a day?",
      tags: ["revenue", "checkout"],
    };
    const reply = await owner.client.post(`${base}/events`, body);
    const property = (name: string, type: string, more: Record<string, unknown>) => ({
      id, name, type, pii: false, required: false, scope: "event", description: null, enum_values: null, event_id: reply.body.id, example: null, ...more,
    });
    expect([reply.status, reply.body]).toEqual([201, {
      id, project_id: projectId, name: "order_completed", kind: "custom", status: "planned", pii_level: "low", platforms: ["web", "ios"], tags: ["revenue", "checkout"],
      properties: [
        property("plan", "string", { required: true, enum_values: ["free", "pro"], description: "The plan bought", example: "pro" }),
        property("amount_minor", "number", { required: true }),
        property("email", "string", { pii: true }),
      ],
      version: 1, volume_30d: null, created_at: time, updated_at: time, description: "A customer paid for an order", display_name: "Order completed",
      first_seen_at: null, last_seen_at: null, owner_id: owner.userId, question: "How many orders a day?",
    }]);
    event = reply.body;
    expect(await owner.client.get(`${base}/events/${event.id}`)).toMatchObject({ status: 200, body: event });
    expect(await settings()).toEqual({ project_id: projectId, catalog_version: 1, warn_on_violations: false, synced_at: null, region_synced: true });
  });

  test("the smallest event: planned, no properties, pii_level none, kind from its name", async () => {
    const path = await freshCatalog("Kinds");
    const kinds: [string, string][] = [
      ["signed_up", "custom"], ["$pageview", "pageview"], ["$pageleave", "pageview"], ["$screen", "screen"], ["$autocapture", "autocapture"],
      ["$rageclick", "autocapture"], ["$identify", "identify"], ["$create_alias", "identify"], ["$set", "identify"], ["$groupidentify", "group"],
      ["$exception", "system"], ["posthog:$web_vitals", "custom"],
    ];
    for (const [name, kind] of kinds) {
      const made = await created(path, { name });
      expect(made).toEqual({
        id, project_id: made.project_id, name, kind, status: "planned", pii_level: "none", platforms: [], tags: [], properties: [], version: 1, volume_30d: null,
        created_at: time, updated_at: time, description: null, display_name: null, first_seen_at: null, last_seen_at: null, owner_id: null, question: null,
      });
    }
    expect((await settings(path)).catalog_version).toBe(kinds.length);
  });

  test("a name the catalog has is 409; a new event starts planned or implemented, never in a later status", async () => {
    const taken = await owner.client.post(`${base}/events`, { name: "order_completed" });
    expect([taken.status, taken.body]).toEqual([409, { error: { code: "conflict", message: 'the catalog already has an event named "order_completed"' } }]);
    expect((await created(base, { name: "refund_issued", status: "implemented" })).status).toBe("implemented");
    for (const status of ["verified", "deprecated", "unplanned"]) {
      const refused = await owner.client.post(`${base}/events`, { name: `new_${status}`, status });
      expect([refused.status, refused.body]).toEqual([400, invalid(`a new event's status must be planned or implemented; ${status} comes later (unplanned events come from a sync)`)]);
    }
  });

  test("PATCH changes only the fields it names; a change raises the event's and the catalog's version, a PATCH that changes nothing raises neither", async () => {
    const version = (await settings()).catalog_version;
    const reply = await owner.client.patch(`${base}/events/${event.id}`, { description: "Paid", tags: ["revenue"] });
    expect([reply.status, reply.body]).toEqual([200, { ...event, description: "Paid", tags: ["revenue"], version: 2, updated_at: time }]);
    expect(reply.body.updated_at > event.updated_at || reply.body.updated_at === event.updated_at).toBe(true);
    event = reply.body;
    expect((await settings()).catalog_version).toBe(version + 1);
    const same = await owner.client.patch(`${base}/events/${event.id}`, { description: "Paid", tags: ["revenue"] });
    expect([same.status, same.body]).toEqual([200, event]);
    const empty = await owner.client.patch(`${base}/events/${event.id}`, {});
    expect([empty.status, empty.body]).toEqual([200, event]);
    expect((await settings()).catalog_version).toBe(version + 1);
    const cleared = await owner.client.patch(`${base}/events/${event.id}`, { description: null, display_name: null, owner_id: null, question: null });
    expect(cleared.body).toEqual({ ...event, description: null, display_name: null, owner_id: null, question: null, version: 3, updated_at: time });
    event = cleared.body;
  });

  test("properties in a PATCH replace the list in the order given; a property keeps its id while its name stays", async () => {
    const [plan, amount] = event.properties;
    const reply = await owner.client.patch(`${base}/events/${event.id}`, {
      properties: [{ name: "amount_minor", type: "number", required: false }, { name: "currency", type: "string", required: true }, { name: "plan", type: "string", enum_values: ["free", "pro", "team"] }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.properties).toEqual([
      { ...amount, required: false },
      { id, name: "currency", type: "string", pii: false, required: true, scope: "event", description: null, enum_values: null, event_id: event.id, example: null },
      { ...plan, required: false, enum_values: ["free", "pro", "team"], description: null, example: null },
    ]);
    expect(reply.body.properties[1].id).not.toBe(event.properties[2].id);
    expect(reply.body.version).toBe(4);
    event = reply.body;
  });

  test("DELETE removes the event and its properties: 204, then 404; the catalog's version is raised", async () => {
    const doomed = await created(base, { name: "to_delete", properties: [{ name: "x", type: "boolean" }] });
    const version = (await settings()).catalog_version;
    const reply = await owner.client.delete(`${base}/events/${doomed.id}`);
    expect([reply.status, reply.body]).toEqual([204, undefined]);
    const gone = await owner.client.get(`${base}/events/${doomed.id}`);
    expect([gone.status, gone.body]).toEqual([404, { error: { code: "not_found", message: "catalog event not found" } }]);
    expect((await owner.client.delete(`${base}/events/${doomed.id}`)).status).toBe(404);
    expect((await settings()).catalog_version).toBe(version + 1);
  });

  test("unknown and malformed event ids are 404; so is an event of another project of the same owner", async () => {
    const other = await freshCatalog("Other");
    const foreign = await created(other, { name: "elsewhere" });
    for (const eventId of [crypto.randomUUID(), "not-a-uuid", foreign.id]) {
      for (const [method, body] of [["GET", undefined], ["PATCH", { description: "x" }], ["DELETE", undefined]] as const) {
        const reply = await owner.client.request(method, `${base}/events/${eventId}`, body);
        expect([method, eventId, reply.status, reply.body]).toEqual([method, eventId, 404, { error: { code: "not_found", message: "catalog event not found" } }]);
      }
    }
  });

  test("without a session every route is 401", async () => {
    for (const [method, path] of [["GET", "/events"], ["POST", "/events"], ["GET", `/events/${event.id}`], ["PATCH", `/events/${event.id}`], ["DELETE", `/events/${event.id}`],
      ["POST", "/sync"], ["GET", "/codegen"], ["GET", "/settings"], ["PATCH", "/settings"]] as const) {
      const reply = await call(service.url, method, `${base}${path}`, { body: method === "GET" || method === "DELETE" ? undefined : {} });
      expect([method, path, reply.status, reply.body.error.code]).toEqual([method, path, 401, "unauthorized"]);
    }
  });
});

describe("status changes by hand", () => {
  const article = (status: string) => `${/^[aeiou]/.test(status) ? "an" : "a"} ${status}`;
  /** Every pair of statuses a person may set: from -> the statuses it may become (the same status is no change). */
  const allowed: Record<string, string[]> = {
    planned: ["planned", "implemented", "deprecated"],
    implemented: ["implemented", "verified", "deprecated"],
    verified: ["verified", "implemented", "deprecated"],
    deprecated: ["deprecated", "planned", "implemented"],
  };
  const statuses = ["planned", "implemented", "unplanned", "verified", "deprecated"];
  /** How to reach each starting status from a new event. */
  const pathTo: Record<string, string[]> = { planned: [], implemented: ["implemented"], verified: ["implemented", "verified"], deprecated: ["deprecated"] };
  let path: string;
  let count = 0;

  beforeAll(async () => {
    path = await freshCatalog("Transitions");
  });

  for (const [from, targets] of Object.entries(allowed)) {
    test(`${article(from)} event can become ${targets.filter((to) => to !== from).join(" or ")}; anything else is 400 and changes nothing`, async () => {
      for (const to of statuses) {
        const made = await created(path, { name: `event_${++count}` });
        let current = made;
        for (const step of pathTo[from]!) current = (await owner.client.patch(`${path}/events/${made.id}`, { status: step })).body;
        expect(current.status).toBe(from);
        const reply = await owner.client.patch(`${path}/events/${made.id}`, { status: to });
        if (targets.includes(to)) {
          expect([from, to, reply.status, reply.body.status]).toEqual([from, to, 200, to]);
          expect(reply.body.version).toBe(current.version + (to === from ? 0 : 1));
        } else {
          const next = allowed[from]!.filter((status) => status !== from).join(" or ");
          expect([from, to, reply.status, reply.body]).toEqual([from, to, 400, invalid(`status cannot change from ${from} to ${to}; ${article(from)} event can become ${next}`)]);
          expect((await owner.client.get(`${path}/events/${made.id}`)).body).toEqual(current);
        }
      }
    });
  }
});

describe("listing", () => {
  let path: string;

  beforeAll(async () => {
    path = await freshCatalog("Listing");
    await created(path, { name: "Checkout Started" });
    await created(path, { name: "checkout_completed", status: "implemented", display_name: "Paid" });
    await created(path, { name: "signup", display_name: "New CHECKOUT account" });
    await created(path, { name: "zzz_old", status: "implemented" });
    const old = (await owner.client.get(`${path}/events?search=zzz`)).body.events[0];
    await owner.client.patch(`${path}/events/${old.id}`, { status: "deprecated" });
  });

  const names = (body: any) => body.events.map((event: any) => event.name);

  test("events come by name with counts per status", async () => {
    const reply = await owner.client.get(`${path}/events`);
    expect([reply.status, names(reply.body), reply.body.counts]).toEqual([200, ["Checkout Started", "checkout_completed", "signup", "zzz_old"], {
      deprecated: 1, implemented: 1, planned: 2, unplanned: 0, verified: 0,
    }]);
  });

  test("search matches names and display names in any case; status filters the events, not the counts", async () => {
    const searched = await owner.client.get(`${path}/events?search=checkout`);
    expect([names(searched.body), searched.body.counts]).toEqual([["Checkout Started", "checkout_completed", "signup"], { deprecated: 0, implemented: 1, planned: 2, unplanned: 0, verified: 0 }]);
    const planned = await owner.client.get(`${path}/events?search=checkout&status=planned`);
    expect([names(planned.body), planned.body.counts]).toEqual([["Checkout Started", "signup"], searched.body.counts]);
    const none = await owner.client.get(`${path}/events?status=verified`);
    expect(names(none.body)).toEqual([]);
    const longest = await owner.client.get(`${path}/events?search=${"x".repeat(catalogSearchLengthMax)}`);
    expect([longest.status, names(longest.body)]).toEqual([200, []]);
  });

  test("an unknown status and a search that is empty or too long are 400", async () => {
    const refused: [string, string][] = [
      ["status=gone", "status must be one of planned, implemented, unplanned, verified, deprecated"],
      ["status=", "status must be one of planned, implemented, unplanned, verified, deprecated"],
      ["search=", `search must be 1 to ${catalogSearchLengthMax} characters`],
      [`search=${"x".repeat(catalogSearchLengthMax + 1)}`, `search must be 1 to ${catalogSearchLengthMax} characters`],
    ];
    for (const [query, message] of refused) {
      const reply = await owner.client.get(`${path}/events?${query}`);
      expect([query, reply.status, reply.body]).toEqual([query, 400, invalid(message)]);
    }
  });
});

describe("dry runs and the audit log", () => {
  test("each write's dry run answers its audit action with before and after and changes nothing", async () => {
    const path = await freshCatalog("Dry");
    const event = await created(path, { name: "kept", description: "old" });
    const before = { events: (await owner.client.get(`${path}/events`)).body, settings: await settings(path) };
    const previews: [string, string, unknown, string, unknown, unknown][] = [
      ["POST", "/events", { name: "preview_only" }, "catalog.event.create", null, expect.objectContaining({ name: "preview_only", status: "planned", version: 1 })],
      ["PATCH", `/events/${event.id}`, { description: "new" }, "catalog.event.update", event, { ...event, description: "new", version: 2, updated_at: time }],
      ["DELETE", `/events/${event.id}`, undefined, "catalog.event.delete", event, null],
      ["PATCH", "/settings", { warn_on_violations: true }, "catalog.settings.update", before.settings, { ...before.settings, warn_on_violations: true, catalog_version: 2, region_synced: false }],
    ];
    for (const [method, suffix, body, action, was, will] of previews) {
      const reply = await owner.client.request(method, `${path}${suffix}?dry_run=true`, body);
      expect([method, suffix, reply.status, reply.body]).toEqual([method, suffix, 200, { action, dry_run: true, before: was, after: will }]);
    }
    expect({ events: (await owner.client.get(`${path}/events`)).body, settings: await settings(path) }).toEqual(before);
    expect(auditRows(event.id).map((row) => row.action)).toEqual(["catalog.event.create"]);
  });

  test("every applied write records the user, the action, the target and before and after", async () => {
    const path = await freshCatalog("Audited");
    const catalogProject = path.split("/")[3]!;
    const event = await created(path, { name: "audited" });
    const changed = (await owner.client.patch(`${path}/events/${event.id}`, { question: "why?" })).body;
    expect((await owner.client.delete(`${path}/events/${event.id}`)).status).toBe(204);
    const actor = { actor_type: "user", actor_id: owner.userId, target_type: "catalog_event" };
    expect(auditRows(event.id)).toEqual([
      { action: "catalog.event.create", ...actor, before: null, after: event },
      { action: "catalog.event.update", ...actor, before: event, after: changed },
      { action: "catalog.event.delete", ...actor, before: changed, after: null },
    ]);
    const turnedOn = await owner.client.patch(`${path}/settings`, { warn_on_violations: true });
    expect([turnedOn.status, turnedOn.body]).toEqual([200, { project_id: catalogProject, catalog_version: 4, warn_on_violations: true, synced_at: null, region_synced: true }]);
    expect(auditRows(catalogProject).map(({ action, actor_type, target_type, after }) => ({ action, actor_type, target_type, after }))).toEqual([
      { action: "catalog.settings.update", actor_type: "user", target_type: "catalog", after: { ...turnedOn.body, region_synced: false } },
    ]);
  });
});

describe("settings", () => {
  test("warn_on_violations turns on and off, each change raising the catalog version; the same value changes nothing; a bad body is 400", async () => {
    const path = await freshCatalog("Settings");
    const catalogProject = path.split("/")[3]!;
    const on = await owner.client.patch(`${path}/settings`, { warn_on_violations: true });
    expect([on.status, on.body]).toEqual([200, { project_id: catalogProject, catalog_version: 1, warn_on_violations: true, synced_at: null, region_synced: true }]);
    expect((await owner.client.patch(`${path}/settings`, { warn_on_violations: true })).body).toEqual(on.body);
    expect((await owner.client.patch(`${path}/settings`, { warn_on_violations: false })).body).toEqual({ ...on.body, catalog_version: 2, warn_on_violations: false });
    for (const body of [{}, { warn_on_violations: "yes" }, { warn_on_violations: true, extra: 1 }]) {
      const reply = await owner.client.patch(`${path}/settings`, body);
      expect([reply.status, reply.body.error.code]).toEqual([400, "validation"]);
    }
  });
});

describe("limits", () => {
  let path: string;
  let counter = 0;
  beforeAll(async () => {
    path = await freshCatalog("Limits");
  });

  const fresh = () => `limit_${++counter}`;
  const properties = (count: number) => Array.from({ length: count }, (_, index) => ({ name: `p${index}`, type: "string" }));
  /** Fields of an event at the edge of a limit, and one past it, with the message of the refusal. */
  const edges: [label: string, atLimit: () => Record<string, unknown>, pastLimit: () => Record<string, unknown>, message: string][] = [
    ["name length", () => ({ name: "n".repeat(catalogEventNameLengthMax - 1) + `${counter++ % 10}` }), () => ({ name: "n".repeat(catalogEventNameLengthMax + 1) }),
      `body /name: Expected string length less or equal to ${catalogEventNameLengthMax}`],
    ["description", () => ({ name: fresh(), description: "d".repeat(descriptionLengthMax) }), () => ({ name: fresh(), description: "d".repeat(descriptionLengthMax + 1) }),
      `body /description: Expected string length less or equal to ${descriptionLengthMax}`],
    ["display name", () => ({ name: fresh(), display_name: "d".repeat(displayNameLengthMax) }), () => ({ name: fresh(), display_name: "d".repeat(displayNameLengthMax + 1) }),
      `body /display_name: Expected string length less or equal to ${displayNameLengthMax}`],
    ["question", () => ({ name: fresh(), question: "q".repeat(questionLengthMax) }), () => ({ name: fresh(), question: "q".repeat(questionLengthMax + 1) }),
      `body /question: Expected string length less or equal to ${questionLengthMax}`],
    ["tags per event", () => ({ name: fresh(), tags: Array.from({ length: tagsPerEventMax }, (_, i) => `t${i}`) }),
      () => ({ name: fresh(), tags: Array.from({ length: tagsPerEventMax + 1 }, (_, i) => `t${i}`) }), `body /tags: Expected array length to be less or equal to ${tagsPerEventMax}`],
    ["tag length", () => ({ name: fresh(), tags: ["t".repeat(tagLengthMax)] }), () => ({ name: fresh(), tags: ["t".repeat(tagLengthMax + 1)] }),
      `body /tags/0: Expected string length less or equal to ${tagLengthMax}`],
    ["platforms per event", () => ({ name: fresh(), platforms: Array.from({ length: platformsPerEventMax }, (_, i) => `p${i}`) }),
      () => ({ name: fresh(), platforms: Array.from({ length: platformsPerEventMax + 1 }, (_, i) => `p${i}`) }), `body /platforms: Expected array length to be less or equal to ${platformsPerEventMax}`],
    ["platform length", () => ({ name: fresh(), platforms: ["p".repeat(platformLengthMax)] }), () => ({ name: fresh(), platforms: ["p".repeat(platformLengthMax + 1)] }),
      `body /platforms/0: Expected string length less or equal to ${platformLengthMax}`],
    ["properties per event", () => ({ name: fresh(), properties: properties(propertiesPerEventMax) }), () => ({ name: fresh(), properties: properties(propertiesPerEventMax + 1) }),
      `body /properties: Expected array length to be less or equal to ${propertiesPerEventMax}`],
    ["property name length", () => ({ name: fresh(), properties: [{ name: "k".repeat(catalogPropertyNameLengthMax), type: "number" }] }),
      () => ({ name: fresh(), properties: [{ name: "k".repeat(catalogPropertyNameLengthMax + 1), type: "number" }] }),
      `body /properties/0/name: Expected string length less or equal to ${catalogPropertyNameLengthMax}`],
    ["enum values per property", () => ({ name: fresh(), properties: [{ name: "e", type: "string", enum_values: Array.from({ length: enumValuesMax }, (_, i) => `v${i}`) }] }),
      () => ({ name: fresh(), properties: [{ name: "e", type: "string", enum_values: Array.from({ length: enumValuesMax + 1 }, (_, i) => `v${i}`) }] }),
      `body /properties/0/enum_values: Expected array length to be less or equal to ${enumValuesMax}`],
    ["enum value length", () => ({ name: fresh(), properties: [{ name: "e", type: "string", enum_values: ["v".repeat(enumValueLengthMax)] }] }),
      () => ({ name: fresh(), properties: [{ name: "e", type: "string", enum_values: ["v".repeat(enumValueLengthMax + 1)] }] }),
      `body /properties/0/enum_values/0: Expected string length less or equal to ${enumValueLengthMax}`],
    ["example length", () => ({ name: fresh(), properties: [{ name: "e", type: "string", example: "x".repeat(exampleLengthMax) }] }),
      () => ({ name: fresh(), properties: [{ name: "e", type: "string", example: "x".repeat(exampleLengthMax + 1) }] }),
      `body /properties/0/example: Expected string length less or equal to ${exampleLengthMax}`],
  ];

  for (const [label, atLimit, pastLimit, message] of edges) {
    test(`${label}: the last allowed value passes, the next is 400`, async () => {
      const ok = await owner.client.post(`${path}/events`, atLimit());
      expect([label, ok.status, ok.body.error]).toEqual([label, 201, undefined]);
      const refused = await owner.client.post(`${path}/events`, pastLimit());
      expect([label, refused.status, refused.body]).toEqual([label, 400, invalid(message)]);
    });
  }

  test("names and tags that are blank, duplicate tags, platforms or enum values, unknown fields and types are 400", async () => {
    const refused: [Record<string, unknown>, string][] = [
      [{ name: "" }, "body /name: Expected string length greater or equal to 1"],
      [{ name: "   " }, "body /name: Expected string to match '\\S'"],
      [{ name: fresh(), tags: [" "] }, "body /tags/0: Expected string to match '\\S'"],
      [{ name: fresh(), tags: ["a", "a"] }, "body /tags: Expected array elements to be unique"],
      [{ name: fresh(), platforms: ["web", "web"] }, "body /platforms: Expected array elements to be unique"],
      [{ name: fresh(), properties: [{ name: "e", type: "string", enum_values: ["a", "a"] }] }, "body /properties/0/enum_values: Expected array elements to be unique"],
      [{ name: fresh(), properties: [{ name: "e", type: "string", enum_values: [] }] }, "body /properties/0/enum_values: Expected array length to be greater or equal to 1"],
      [{ name: fresh(), kind: "custom" }, "body /kind: Unexpected property"],
      [{ name: fresh(), properties: [{ name: "e", type: "integer" }] }, "body /properties/0/type: Expected union value"],
      [{ name: fresh(), pii_level: "extreme" }, "body /pii_level: Expected union value"],
      [{ name: fresh(), owner_id: "nobody" }, "body /owner_id: Expected string to match 'uuid' format"],
    ];
    for (const [body, message] of refused) {
      const reply = await owner.client.post(`${path}/events`, body);
      expect([body, reply.status, reply.body]).toEqual([body, 400, invalid(message)]);
    }
  });

  test("property names must be distinct; enum_values are for string properties; an owner must be a member of the organisation", async () => {
    const refused: [Record<string, unknown>, string][] = [
      [{ name: fresh(), properties: [{ name: "dup", type: "string" }, { name: "dup", type: "number" }] }, 'property names must be distinct: "dup" is listed twice'],
      [{ name: fresh(), properties: [{ name: "tier", type: "number", enum_values: ["1", "2"] }] }, 'property "tier": enum_values are for properties of type string, not number'],
      [{ name: fresh(), owner_id: crypto.randomUUID() }, "owner_id must be a member of the project's organisation"],
    ];
    for (const [body, message] of refused) {
      const reply = await owner.client.post(`${path}/events`, body);
      expect([body, reply.status, reply.body]).toEqual([body, 400, invalid(message)]);
    }
    const member = await addMember(service, owner, "viewer");
    expect((await created(path, { name: fresh(), owner_id: member.userId })).owner_id).toBe(member.userId);
  });

  test("a body over 64 KB is 413", async () => {
    const reply = await owner.client.post(`${path}/events`, { name: fresh(), description: "x".repeat(64 * 1024) });
    expect([reply.status, reply.body]).toEqual([413, { error: { code: "payload_too_large", message: "request body exceeds 65536 bytes" } }]);
  });

  test(`a catalog holds ${catalogEventsMax} events: the last one is created, the next is 409`, async () => {
    const full = await freshCatalog("Full");
    for (let index = 0; index < catalogEventsMax; index++) {
      const reply = await owner.client.post(`${full}/events`, { name: `event_${index}` });
      if (reply.status !== 201) throw new Error(`event ${index} answered ${reply.status}`);
    }
    const refused = await owner.client.post(`${full}/events`, { name: "one_too_many" });
    expect([refused.status, refused.body]).toEqual([409, { error: { code: "conflict", message: `the catalog holds ${catalogEventsMax} events, its limit; delete some first` } }]);
  }, 120_000);
});
