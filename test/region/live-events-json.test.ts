// GET /region/{code}/events/live without Accept: text/event-stream (the last events as JSON),
// and what both answers share: personal data masked without persons.pii, hostile data intact
// as JSON, access (401, 403) and every query parameter's bounds at their edges.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { regionTokenFor } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { sendAccepted, type NativeEvent } from "../ingest/helpers.ts";
import { recentEventsMax } from "../../server/region/live/recent-events.ts";
import { liveFilterValuesMax, livePropertyFiltersMax, livePropertyValueLengthMax } from "../../server/region/live/live-query.ts";
import { distinctIdLengthMax, eventNameLengthMax, propertyKeyLengthMax } from "../../server/ingest/limits.ts";
import { at, nextEvents, shown, startLiveFixture, type LiveFixture, type TestProject } from "./live-events-fixture.ts";

let live: LiveFixture;
beforeAll(async () => {
  live = await startLiveFixture();
});
afterAll(() => live.service.close());

describe("JSON answers (without Accept: text/event-stream)", () => {
  let project: TestProject;
  let events: NativeEvent[];

  beforeAll(async () => {
    project = await live.newProject("Json");
    events = [
      at({ distinct_id: "ann", event: "signed_up", properties: { plan: "pro", seats: 1 } }),
      at({ distinct_id: "bob", event: "clicked", properties: { plan: "free", seats: "1" } }),
      at({ distinct_id: "bob", event: "signed_up", properties: { plan: "pro", seats: 1, trial: null } }),
    ];
    await sendAccepted(live.service.url, project.keys.production!, events);
  });

  test("the last events, newest first, with the id to resume a stream from", async () => {
    for (const headers of [{}, { accept: "application/json" }, { accept: "*/*" }] as Record<string, string>[]) {
      const reply = await live.liveJson(project.pii, "", headers);
      expect([reply.status, reply.headers.get("content-type"), reply.body]).toEqual([
        200, "application/json", { events: [shown(events[2]!), shown(events[1]!), shown(events[0]!)], last_event_id: live.id(3) },
      ]);
    }
    const quiet = await live.newProject("Quiet");
    const empty = await live.liveJson(quiet.query);
    expect([empty.status, empty.body]).toEqual([200, { events: [], last_event_id: live.id(0) }]);
  });

  test("limit and filters", async () => {
    const cases: [string, NativeEvent[]][] = [
      ["?limit=2", [events[2]!, events[1]!]],
      ["?limit=0", []],
      [`?limit=${recentEventsMax}`, [events[2]!, events[1]!, events[0]!]],
      ["?event=signed_up", [events[2]!, events[0]!]],
      ["?event=clicked&event=signed_up&limit=2", [events[2]!, events[1]!]],
      ["?distinct_id=bob", [events[2]!, events[1]!]],
      [`?properties=${encodeURIComponent('{"seats":1}')}`, [events[2]!, events[0]!]],
      [`?properties=${encodeURIComponent('{"seats":"1"}')}`, [events[1]!]],
      [`?properties=${encodeURIComponent('{"trial":null}')}`, [events[2]!]],
      [`?properties=${encodeURIComponent('{"plan":"pro","seats":1}')}&distinct_id=bob`, [events[2]!]],
      [`?properties=${encodeURIComponent('{"missing":"x"}')}`, []],
      ["?event=nothing", []],
    ];
    for (const [query, expected] of cases) {
      const reply = await live.liveJson(project.pii, query);
      expect([query, reply.status, reply.body]).toEqual([query, 200, { events: expected.map((event) => shown(event)), last_event_id: live.id(3) }]);
    }
  });

  test(`each project environment keeps its last ${recentEventsMax} events`, async () => {
    const full = await live.newProject("Full");
    const sent = Array.from({ length: recentEventsMax }, () => at());
    await sendAccepted(live.service.url, full.keys.production!, sent);
    const all = await live.liveJson(full.query);
    expect(all.body.events.map((event: { uuid: string }) => event.uuid)).toEqual([...sent].reverse().map((event) => event.uuid));
    const next = at();
    await sendAccepted(live.service.url, full.keys.production!, [next]);
    const after = await live.liveJson(full.query);
    expect([after.body.events.length, after.body.events[0].uuid, after.body.events.at(-1).uuid, after.body.last_event_id]).toEqual([
      recentEventsMax, next.uuid, sent[1]!.uuid, live.id(recentEventsMax + 1),
    ]);
  });

  test("the person is the person now, after merges", async () => {
    const merged = await live.newProject("Merged");
    const browsing = at({ distinct_id: "anon-1" });
    await sendAccepted(live.service.url, merged.keys.production!, [browsing]);
    await sendAccepted(live.service.url, merged.keys.production!, [at({ distinct_id: "user-1", event: "$identify", properties: { $anon_distinct_id: "anon-1" } })]);
    const persons = await regionTokenFor(live.service, live.patSecret, merged.id, ["persons:read"]);
    const person = await call(live.service.url, "GET", "/region/eu/persons?search=anon-1", { headers: bearer(persons) });
    const reply = await live.liveJson(merged.pii);
    expect(reply.body.events.map((event: { person_id: string }) => event.person_id)).toEqual([person.body.results[0].id, person.body.results[0].id]);
  });
});

describe("personal data", () => {
  test("is masked unless the token holds persons.pii, and filtering by it needs persons.pii", async () => {
    const project = await live.newProject("Personal");
    const event = at({ properties: { email: "ann@example.com", plan: "pro", contact: { phone: "+44 20 7946 0958", note: "hi" }, seen_from: "81.2.69.160" }, $set: { name: "Ann", plan: "pro" } });
    await sendAccepted(live.service.url, project.keys.production!, [event]);
    const masked = { ...event, properties: { email: "[masked]", plan: "pro", contact: { phone: "[masked]", note: "hi" }, seen_from: "[masked]" }, $set: { name: "[masked]", plan: "pro" } };
    const plain = await live.liveJson(project.query);
    expect(plain.body.events).toEqual([shown(masked)]);
    const { stream } = await live.openLive(project.query);
    expect(await nextEvents(stream, 1)).toEqual([{ type: "backlog", id: live.id(1), data: shown(masked) }]);
    await stream.close();
    expect((await live.liveJson(project.pii)).body.events).toEqual([shown(event)]);

    const forbidden = { error: { code: "forbidden", message: "filtering by personal-data properties needs persons.pii" } };
    for (const properties of ['{"email":"ann@example.com"}', '{"plan":"pro","where":"81.2.69.160"}']) {
      const query = `?properties=${encodeURIComponent(properties)}`;
      const refused = await live.liveJson(project.query, query);
      expect([properties, refused.status, refused.body]).toEqual([properties, 403, forbidden]);
      expect((await live.liveJson(project.pii, query)).status).toBe(200);
    }
  });
});

describe("hostile data", () => {
  test("event names, distinct ids, keys and values arrive intact as JSON, on the stream and in JSON answers", async () => {
    const project = await live.newProject("Hostile");
    const { stream } = await live.openLive(project.pii, "?limit=0");
    const properties = JSON.parse(JSON.stringify({
      text: "line\n\nevent: end\ndata: {\"reason\":\"forged\"}\r\n\r\nid: 9\r",
      separators: "\u2028\u2029\u0000\u001b[31m",
      markup: "</script><script>alert(1)</script><img src=x onerror=alert(1)>",
      sql: "'; DROP TABLE events; --",
      "quote\"key'": "\\\"",
      constructor: "constructor",
      toString: 1,
    }).replace("{", '{"__proto__":{"polluted":true},'));
    const hostile = at({
      event: "evil\n\nevent: end\ndata: x\r\n<b>bold</b>",
      distinct_id: "id\r\nid: 1\n\n:comment",
      properties,
    });
    await sendAccepted(live.service.url, project.keys.production!, [hostile]);
    const marker = at({ event: "marker" });
    await sendAccepted(live.service.url, project.keys.production!, [marker]);
    const received = await nextEvents(stream, 2);
    expect(received).toEqual([{ type: "event", id: live.id(1), data: shown(hostile) }, { type: "event", id: live.id(2), data: shown(marker) }]);
    expect(Object.hasOwn(received[0]!.data.properties, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await stream.close();

    const reply = await live.liveJson(project.pii, `?event=${encodeURIComponent(hostile.event)}&properties=${encodeURIComponent(JSON.stringify({ text: properties.text }))}`);
    expect([reply.status, reply.body]).toEqual([200, { events: [shown(hostile)], last_event_id: live.id(2) }]);
  });
});

describe("access and parameters", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await live.newProject("Access");
  });

  test("needs a region token with query:read (401 without one, 403 without the scope), as a stream or JSON", async () => {
    const personsOnly = await regionTokenFor(live.service, live.patSecret, project.id, ["persons:read"]);
    for (const headers of [{}, { accept: "text/event-stream" }] as Record<string, string>[]) {
      const missing = await live.liveJson(null, "", headers);
      expect([missing.status, missing.body]).toEqual([401, { error: { code: "unauthorized", message: "region token required (Authorization: Bearer <token>)" } }]);
      const invalid = await live.liveJson("not-a-token", "", headers);
      expect([invalid.status, invalid.body]).toEqual([401, { error: { code: "unauthorized", message: "invalid region token" } }]);
      const forbidden = await live.liveJson(personsOnly, "", headers);
      expect([forbidden.status, forbidden.body]).toEqual([403, { error: { code: "forbidden", message: "region token lacks scope query:read" } }]);
    }
  });

  test("bad parameters answer 400 bad_request; each limit's last allowed value passes", async () => {
    const json = (value: unknown) => `properties=${encodeURIComponent(JSON.stringify(value))}`;
    const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]));
    const repeated = (name: string, count: number) => Array.from({ length: count }, (_, index) => `${name}=v${index}`).join("&");
    const propertiesMessage = `properties must be a JSON object of 1 to ${livePropertyFiltersMax} keys, each mapped to a string, number, boolean or null`;
    const refused: [string, string][] = [
      ["since=yesterday", 'unknown query parameter "since"; known: event, distinct_id, properties, limit'],
      ["events=clicked", 'unknown query parameter "events"; known: event, distinct_id, properties, limit'],
      ["event=", `each event must be 1 to ${eventNameLengthMax} characters`],
      [`event=${"e".repeat(eventNameLengthMax + 1)}`, `each event must be 1 to ${eventNameLengthMax} characters`],
      [repeated("event", liveFilterValuesMax + 1), `event may be given at most ${liveFilterValuesMax} times`],
      [`distinct_id=${"d".repeat(distinctIdLengthMax + 1)}`, `each distinct_id must be 1 to ${distinctIdLengthMax} characters`],
      [repeated("distinct_id", liveFilterValuesMax + 1), `distinct_id may be given at most ${liveFilterValuesMax} times`],
      ["properties=plan:pro", propertiesMessage],
      [json(["plan", "pro"]), propertiesMessage],
      [json("plan"), propertiesMessage],
      [json({}), propertiesMessage],
      [json(keys(livePropertyFiltersMax + 1)), propertiesMessage],
      [json({ plan: { name: "pro" } }), propertiesMessage],
      [json({ plan: ["pro"] }), propertiesMessage],
      [`${json({ plan: "pro" })}&${json({ seats: 1 })}`, "properties may be given once (one JSON object holds every key)"],
      [json({ "": 1 }), `each key of properties must be 1 to ${propertyKeyLengthMax} characters`],
      [json({ ["k".repeat(propertyKeyLengthMax + 1)]: 1 }), `each key of properties must be 1 to ${propertyKeyLengthMax} characters`],
      [json({ plan: "p".repeat(livePropertyValueLengthMax + 1) }), `each string value of properties must be at most ${livePropertyValueLengthMax} characters`],
      ["limit=-1", `limit must be an integer from 0 to ${recentEventsMax}`],
      [`limit=${recentEventsMax + 1}`, `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=1.5", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=ten", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=", `limit must be an integer from 0 to ${recentEventsMax}`],
      ["limit=1&limit=2", `limit must be an integer from 0 to ${recentEventsMax}`],
    ];
    for (const [query, message] of refused) {
      for (const headers of [{}, { accept: "text/event-stream" }] as Record<string, string>[]) {
        const reply = await live.liveJson(project.pii, `?${query}`, headers);
        expect([query.slice(0, 80), reply.status, reply.body]).toEqual([query.slice(0, 80), 400, { error: { code: "bad_request", message } }]);
      }
    }
    // Characters are Unicode code points, as ingest counts them: 200 emoji are a 200-character id.
    const allowed = [
      `event=${"e".repeat(eventNameLengthMax)}`,
      repeated("event", liveFilterValuesMax),
      `distinct_id=${encodeURIComponent("😀".repeat(distinctIdLengthMax))}`,
      repeated("distinct_id", liveFilterValuesMax),
      json(keys(livePropertyFiltersMax)),
      json({ ["k".repeat(propertyKeyLengthMax)]: true, plan: "p".repeat(livePropertyValueLengthMax), none: null }),
      "limit=0",
      `limit=${recentEventsMax}`,
    ];
    for (const query of allowed) {
      const reply = await live.liveJson(project.pii, `?${query}`);
      expect([query.slice(0, 80), reply.status, reply.body]).toEqual([query.slice(0, 80), 200, { events: [], last_event_id: live.id(0) }]);
    }
  });
});

