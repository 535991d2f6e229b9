// Drop-in ids that are email addresses or phone numbers (docs/drop-in.md): PostHog's and
// Segment's paths store each as its keyed pseudonym, the same for every spelling, call and path
// of a project and after a restart, another in another project; the address becomes the
// person's $email or $phone (masked without persons.pii) and each is counted as an ingestion
// warning. Native events with such ids stay rejected. Expected pseudonyms are computed here from
// the project's key, read from region.sqlite as the service stored it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { PostHog } from "posthog-node";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { nativeBody, nativeEvent, ok, postIngest } from "../ingest/helpers.ts";
import type { RegionPerson } from "./region-reader.ts";

let service: TestService;
let owner: SignedUpUser;
let patSecret: string;
let project: { id: string };
let key: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Contacts owner");
  patSecret = (await createToken(owner, ["query:read", "persons:read", "persons.pii"])).secret;
  const created = await createProject(owner, "Contacts", "eu");
  project = created.project;
  key = created.public_keys[0].key;
});
afterAll(() => service.close());

/** The pseudonym of a contact in a project, as docs/drop-in.md defines it. */
function pseudonymOf(projectId: string, kind: "email" | "phone", normalised: string): string {
  const db = new Database(join(service.dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    const row = db.query("SELECT pseudonym_key FROM project_secrets WHERE project_id = ?").get(projectId) as { pseudonym_key: Uint8Array };
    return `psn_${createHmac("sha256", row.pseudonym_key).update(`${kind}:${normalised}`).digest("hex").slice(0, 32)}`;
  } finally {
    db.close();
  }
}

async function regionGet(path: string, scopes: string[], projectId = project.id) {
  const token = await v1(service, patSecret, "POST", `/v1/projects/${projectId}/region-token`, { scopes });
  const reply = await call(service.url, "GET", `/region/eu${path}`, { headers: bearer(token.body.token) });
  expect([path, reply.status]).toEqual([path, 200]);
  return reply.body;
}

async function personOf(distinctId: string, projectId = project.id): Promise<RegionPerson> {
  const { results } = await regionGet(`/persons?search=${encodeURIComponent(distinctId)}`, ["persons:read", "persons.pii"], projectId);
  const matches = (results as RegionPerson[]).filter((person) => person.distinct_ids.includes(distinctId));
  expect([distinctId, matches.length]).toEqual([distinctId, 1]);
  return matches[0]!;
}

const eventsOf = async (person: RegionPerson) =>
  ((await regionGet(`/persons/${person.id}/events`, ["persons:read", "persons.pii"])).results as Record<string, any>[]).reverse();

const postHog = (batch: unknown[], apiKey = key, baseUrl = service.url) => postIngest(baseUrl, { api_key: apiKey, batch }, { path: "/i/v0/e/" });
const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
const accepted = (count: number) => ({ status: 1, ...ok(count) });

const emailWarning = (name: string) =>
  `${name} looks like an email address; it is stored as a pseudonym (psn_…) with the address as the person property $email; send a user id instead`;
const phoneWarning = (name: string) =>
  `${name} looks like a phone number; it is stored as a pseudonym (psn_…) with the number as the person property $phone; send a user id instead`;

describe("PostHog", () => {
  test("an email address or phone number as distinct_id, $anon_distinct_id or alias is stored as its pseudonym, the same for every spelling; the person keeps $email and $phone", async () => {
    const reply = await postHog([
      { event: "signed_up", distinct_id: " Jane.Doe@Example.com ", timestamp: at(50) },
      { event: "viewed", distinct_id: "jane.doe@example.com", timestamp: at(40) },
      { event: "$identify", distinct_id: "contacts-user", timestamp: at(30), properties: { $anon_distinct_id: "jane.doe@example.com" } },
      { event: "$create_alias", distinct_id: "contacts-user", timestamp: at(20), properties: { alias: "+44 20 7946 0958" } },
      { event: "called", distinct_id: "+442079460958", timestamp: at(10) },
    ]);
    expect([reply.status, reply.body]).toEqual([200, accepted(5)]);
    const email = pseudonymOf(project.id, "email", "jane.doe@example.com");
    const phone = pseudonymOf(project.id, "phone", "+442079460958");
    expect([email, phone].map((id) => /^psn_[0-9a-f]{32}$/.test(id))).toEqual([true, true]);

    const person = await personOf("contacts-user");
    expect([[...person.distinct_ids].sort(), person.properties]).toEqual([
      ["contacts-user", email, phone].sort(),
      { $email: "jane.doe@example.com", $phone: "+442079460958" },
    ]);
    const events = await eventsOf(person);
    expect(events.map((event) => [event.event, event.distinct_id, event.anon_id, event.$set, event.properties])).toEqual([
      ["signed_up", email, null, { $email: " Jane.Doe@Example.com " }, {}],
      ["viewed", email, null, { $email: "jane.doe@example.com" }, {}],
      ["$identify", "contacts-user", email, { $email: "jane.doe@example.com" }, { $anon_distinct_id: email }],
      ["$create_alias", "contacts-user", null, { $phone: "+44 20 7946 0958" }, { alias: phone }],
      ["called", phone, null, { $phone: "+442079460958" }, {}],
    ]);
    // Without persons.pii they are masked like any personal data.
    const masked = await regionGet(`/persons/${person.id}`, ["persons:read"]);
    expect(masked.properties).toEqual({ $email: "[masked]", $phone: "[masked]" });
  });

  test("each replaced id is an ingestion warning; its example masks the address", async () => {
    const { results } = await regionGet("/ingestion/warnings?reason=pseudonymised_id", ["query:read"]);
    expect(results.map((entry: { message: string; count: number }) => [entry.message, entry.count])).toEqual([
      [emailWarning("distinct_id"), 2],
      [emailWarning("$anon_distinct_id"), 1],
      [phoneWarning("alias"), 1],
      [phoneWarning("distinct_id"), 1],
    ]);
    const examples = results.map((entry: { example: string }) => entry.example).join("\n");
    expect(["jane.doe", "Jane.Doe", "7946", "079460958"].filter((text) => examples.includes(text))).toEqual([]);
  });

  test("an event's own $email is kept over its distinct id's address; $device_id is replaced too; native events with such ids are still rejected", async () => {
    const reply = await postHog([
      { event: "own", distinct_id: "own@example.com", $set: { $email: "chosen@example.com", plan: "pro" } },
      { event: "device", distinct_id: "contacts-device-user", properties: { $device_id: "Device@Example.com" } },
    ]);
    expect([reply.status, reply.body]).toEqual([200, accepted(2)]);
    const person = await personOf(pseudonymOf(project.id, "email", "own@example.com"));
    expect(person.properties).toEqual({ $email: "chosen@example.com", plan: "pro" });
    // $device_id, the anonymous id when there is no $anon_distinct_id, too.
    const device = pseudonymOf(project.id, "email", "device@example.com");
    const withDevice = await personOf("contacts-device-user");
    const [deviceEvent] = await eventsOf(withDevice);
    expect([[...withDevice.distinct_ids].sort(), withDevice.properties, deviceEvent!.anon_id, deviceEvent!.properties]).toEqual([
      ["contacts-device-user", device].sort(), { $email: "Device@Example.com" }, device, { $device_id: device },
    ]);
    const native = nativeEvent({ distinct_id: "native@example.com" });
    const nativeReply = await postIngest(service.url, nativeBody(key, [native]));
    expect([nativeReply.status, nativeReply.body]).toEqual([200, ok(0, [{ uuid: native.uuid, reason: "invalid", message: "distinct_id looks like an email address; use a user id" }])]);
  });

  test("posthog-node: a capture with distinctId jane@example.com and revenue 49.99 USD is stored (the SDK never shows a rejection)", async () => {
    const client = new PostHog(key, { host: `${service.url}/ingest/eu`, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 });
    client.capture({ distinctId: "jane@example.com", event: "order_placed", properties: { revenue: 49.99, currency: "USD" } });
    await client.shutdown();
    const person = await personOf(pseudonymOf(project.id, "email", "jane@example.com"));
    const [order] = await eventsOf(person);
    expect([person.properties.$email, order!.event, order!.properties.revenue, order!.properties.currency]).toEqual(["jane@example.com", "order_placed", 4999, "USD"]);
  });
});

describe("Segment, other projects and restarts", () => {
  test("Segment's userId, anonymousId and previousId get the same pseudonyms as PostHog's ids in the project", async () => {
    const send = (batch: unknown[]) => postIngest(service.url, { writeKey: key, batch }, { path: "/v1/batch" });
    const reply = await send([
      { type: "identify", userId: "JANE.DOE@example.com", traits: { plan: "team" } },
      { type: "track", userId: "contacts-seg", anonymousId: "+1 (555) 123-4567", event: "Clicked" },
      { type: "alias", userId: "contacts-seg", previousId: "bob@example.org" },
    ]);
    expect([reply.status, reply.body]).toEqual([200, { success: true, ...ok(3) }]);
    const jane = await personOf("contacts-user");
    expect(jane.properties).toEqual({ $email: "JANE.DOE@example.com", $phone: "+442079460958", plan: "team" });
    const seg = await personOf("contacts-seg");
    expect([...seg.distinct_ids].sort()).toEqual(
      ["contacts-seg", pseudonymOf(project.id, "phone", "+15551234567"), pseudonymOf(project.id, "email", "bob@example.org")].sort(),
    );
    expect(seg.properties).toEqual({ $email: "bob@example.org", $phone: "+1 (555) 123-4567" });
    const { results } = await regionGet("/ingestion/warnings?reason=pseudonymised_id", ["query:read"]);
    expect(results.filter((entry: { message: string }) => /^(userId|anonymousId|previousId) /.test(entry.message)).map((entry: { message: string }) => entry.message)).toEqual([
      phoneWarning("anonymousId"), emailWarning("previousId"), emailWarning("userId"),
    ]);
  });

  test("another project's key gives the same address another pseudonym; a project's key survives a restart", async () => {
    const other = await createProject(owner, "Elsewhere", "eu");
    const reply = await postHog([{ event: "x", distinct_id: "jane.doe@example.com" }], other.public_keys[0].key);
    expect([reply.status, reply.body]).toEqual([200, accepted(1)]);
    const elsewhere = pseudonymOf(other.project.id, "email", "jane.doe@example.com");
    expect(elsewhere).not.toBe(pseudonymOf(project.id, "email", "jane.doe@example.com"));
    expect((await personOf(elsewhere, other.project.id)).properties).toEqual({ $email: "jane.doe@example.com" });

    service = await service.restart();
    const again = await postHog([{ event: "back", distinct_id: "jane.doe@example.com" }]);
    expect([again.status, again.body]).toEqual([200, accepted(1)]);
    const person = await personOf("contacts-user");
    expect((await eventsOf(person)).filter((event) => event.event === "back").map((event) => event.distinct_id)).toEqual([
      pseudonymOf(project.id, "email", "jane.doe@example.com"),
    ]);
  });
});
