// The bounds and checks of an erasure request, through the region link and the internal route:
// identifiers at their limit and one past it, malformed ids, environments and data ids, and
// hostile bodies; an erasure by person id; identifiers that name nobody.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, signUp } from "../../helpers/accounts.ts";
import { isoPattern } from "../../helpers/client.ts";
import { nativeEvent, sendAccepted } from "../../ingest/helpers.ts";
import { sha256Hex } from "../../../server/crypto.ts";
import { RegionRefusal } from "../../../server/region/region-link.ts";
import { erasureIdentifiersMax, erasureStores, type RegionErasureRequest } from "../../../server/region/erasure/erasure-types.ts";
import { distinctIdLengthMax } from "../../../server/ingest/limits.ts";
import { erasureBodyBytesMax } from "../../../server/region/erasure/erasure-routes.ts";

const regionSecret = "erasure-validation-secret";
let service: TestService;
let projectId: string;
let dataId: number;
let key: string;

beforeAll(async () => {
  service = await startTestService({ REGION_SECRET: regionSecret });
  const owner = await signUp(service, "Erasure limits owner");
  const created = await createProject(owner, "Limits", "eu");
  projectId = created.project.id;
  key = created.public_keys[0].key;
  dataId = service.nodes.get("eu")!.store.projectDataId(projectId)!;
});
afterAll(async () => {
  await service.close();
});

let serial = 0;
const request = (overrides: Partial<RegionErasureRequest> = {}): RegionErasureRequest => ({
  erasure_id: `0193a7c2-8888-7000-8000-${String(++serial).padStart(12, "0")}`,
  project_id: projectId,
  data_id: dataId,
  environment: "production",
  person_ids: [],
  distinct_ids: ["nobody"],
  ...overrides,
});
const ids = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
const zeroCounts = Object.fromEntries(erasureStores.map((store) => [store, 0]));

/** What the link refuses with: status, code, message. */
async function refusal(body: RegionErasureRequest): Promise<[number, string, string]> {
  try {
    await service.ctx.regions.get("eu")!.erase(body);
  } catch (error) {
    if (error instanceof RegionRefusal) return [error.status, error.code, error.message];
    throw error;
  }
  throw new Error("the erasure was not refused");
}

describe("erasure requests at their limits", () => {
  test(`${erasureIdentifiersMax} identifiers that name nobody: an erasure of nothing, each named identifier hashed`, async () => {
    const person = "0193a7c2-9999-7000-8000-000000000001";
    const body = request({ person_ids: [person], distinct_ids: ids(erasureIdentifiersMax - 1, "nobody") });
    const report = await service.ctx.regions.get("eu")!.erase(body);
    expect(report).toEqual({
      erasure_id: body.erasure_id,
      identifier_hashes: [sha256Hex(`${projectId}:person_id:${person}`), ...body.distinct_ids.map((id) => sha256Hex(`${projectId}:distinct_id:${id}`))].sort(),
      persons_erased: 0,
      removed: zeroCounts,
      // Every environment of the project (a new project has three), with no live file.
      manifest_digest: sha256Hex(JSON.stringify(["development", "production", "staging"].map((environment) => ({ environment, parts: [], segments: [] })))),
      completed_at: expect.stringMatching(isoPattern),
    });
  });

  test(`${erasureIdentifiersMax + 1} identifiers are refused, person ids and distinct ids counted together`, async () => {
    const message = `an erasure names 1 to ${erasureIdentifiersMax} identifiers (person_ids and distinct_ids together); this one names ${erasureIdentifiersMax + 1}`;
    expect(await refusal(request({ person_ids: ["0193a7c2-9999-7000-8000-000000000001"], distinct_ids: ids(erasureIdentifiersMax, "x") }))).toEqual([400, "bad_request", message]);
    expect(await refusal(request({ distinct_ids: [] }))).toEqual([400, "bad_request", `an erasure names 1 to ${erasureIdentifiersMax} identifiers (person_ids and distinct_ids together); this one names 0`]);
  });

  test("malformed ids, environments and data ids are refused without naming the identifiers", async () => {
    const cases: [Partial<RegionErasureRequest>, string][] = [
      [{ erasure_id: "not-a-uuid" }, "erasure_id must be a uuid"],
      [{ project_id: "p1" }, "project_id must be a uuid"],
      [{ data_id: 0 }, "data_id must be a positive integer"],
      [{ data_id: 1.5 }, "data_id must be a positive integer"],
      [{ data_id: dataId + 1000 }, `data_id ${dataId + 1000} is not the data id of project ${projectId}`],
      [{ environment: "" }, "environment must be 1 to 100 lowercase letters, digits, '-' or '_'"],
      [{ environment: "Prod'; DROP TABLE persons; --" }, "environment must be 1 to 100 lowercase letters, digits, '-' or '_'"],
      [{ environment: "e".repeat(101) }, "environment must be 1 to 100 lowercase letters, digits, '-' or '_'"],
      [{ environment: "qa" }, `project ${projectId} has no environment qa in this region`],
      [{ person_ids: ["secret-person@example.org"] }, "person_ids[0] must be a uuid"],
      [{ distinct_ids: ["ok", "   "] }, `distinct_ids[1] must be a string of 1 to ${distinctIdLengthMax} characters, not only white space`],
      [{ distinct_ids: ["x".repeat(distinctIdLengthMax + 1)] }, `distinct_ids[0] must be a string of 1 to ${distinctIdLengthMax} characters, not only white space`],
      [{ distinct_ids: [42 as never] }, "person_ids and distinct_ids must be arrays of strings"],
      [{ person_ids: null as never }, "person_ids and distinct_ids must be arrays of strings"],
    ];
    for (const [overrides, message] of cases) expect(await refusal(request(overrides))).toEqual([400, "bad_request", message]);
    // At the edge: the longest distinct id is taken.
    expect((await service.ctx.regions.get("eu")!.erase(request({ distinct_ids: ["x".repeat(distinctIdLengthMax)] }))).persons_erased).toBe(0);
  });

  test("the internal route refuses hostile bodies with the region's errors", async () => {
    const post = (body: string) => fetch(`${service.url}/region/eu/internal/erasures`, { method: "POST", headers: { "content-type": "application/json", "X-Region-Secret": regionSecret }, body });
    const answers = await Promise.all(["[1,2]", "null", "{", JSON.stringify({ ...request(), environment: "<script>" }), JSON.stringify(request({ distinct_ids: Array.from({ length: erasureBodyBytesMax / distinctIdLengthMax }, () => "x".repeat(distinctIdLengthMax)) }))].map(async (body) => {
      const response = await post(body);
      return [response.status, await response.json()];
    }));
    const refused = (status: number, code: string, message: string) => [status, { error: { code, message } }];
    expect(answers).toEqual([
      refused(400, "bad_request", "the body must be an erasure request object"),
      refused(400, "bad_request", "the body must be an erasure request object"),
      refused(400, "bad_request", "request body is not valid JSON"),
      refused(400, "bad_request", "environment must be 1 to 100 lowercase letters, digits, '-' or '_'"),
      refused(413, "payload_too_large", `request body exceeds ${erasureBodyBytesMax} bytes`),
    ]);
  });

  test("an erasure by person id erases the person's distinct ids and events; asked again it answers the same report", async () => {
    await sendAccepted(service.url, key, [nativeEvent({ distinct_id: "by-uuid-1" }), nativeEvent({ distinct_id: "by-uuid-1" }), nativeEvent({ distinct_id: "stays-1" })]);
    const node = service.nodes.get("eu")!;
    const person = node.store.directory.personOf(projectId, "by-uuid-1")!;
    const body = request({ person_ids: [person.id.toUpperCase()], distinct_ids: [] });
    const report = await service.ctx.regions.get("eu")!.erase(body);
    expect(report.identifier_hashes).toEqual([sha256Hex(`${projectId}:distinct_id:by-uuid-1`), sha256Hex(`${projectId}:person_id:${person.id}`)].sort());
    expect([report.persons_erased, report.removed.persons, report.removed.distinct_ids, report.removed.events_unsealed, report.removed.live_events]).toEqual([1, 1, 1, 2, 2]);
    expect(node.store.directory.personOf(projectId, "by-uuid-1")).toBeNull();
    expect(node.store.directory.personOf(projectId, "stays-1")).not.toBeNull();
    expect(await service.ctx.regions.get("eu")!.erase(body)).toEqual(report);
    const snapshot = await node.events.snapshot(dataId, "production");
    expect(snapshot.parts.reduce((sum, part) => sum + part.rows, 0) + snapshot.segments.reduce((sum, segment) => sum + segment.rows, 0) + snapshot.bufferedRows).toBe(1);
  });
});

describe("hostile identifiers", () => {
  test("ids with SQL wildcards, quotes and other scripts erase exactly their persons", async () => {
    const hostile = ["a%", "a_", "' OR 1=1 --", "\"quoted\"", "ü\u0000x", "<img src=x onerror=alert(1)>"];
    const bystanders = ["ab", "a", "a-b", "quoted", "üx"];
    await sendAccepted(service.url, key, [...hostile, ...bystanders].map((id) => nativeEvent({ distinct_id: id })));
    const node = service.nodes.get("eu")!;
    await node.events.flush();
    const report = await service.ctx.regions.get("eu")!.erase(request({ distinct_ids: hostile }));
    expect([report.persons_erased, report.removed.distinct_ids, report.removed.events_parquet]).toEqual([hostile.length, hostile.length, hostile.length]);
    expect(hostile.map((id) => node.store.directory.personOf(projectId, id))).toEqual(hostile.map(() => null));
    expect(bystanders.filter((id) => node.store.directory.personOf(projectId, id) === null)).toEqual([]);
    const snapshot = await node.events.snapshot(dataId, "production");
    // The bystanders' events, and the one left by the erasure by person id above.
    expect(snapshot.parts.reduce((sum, part) => sum + part.rows, 0) + snapshot.segments.reduce((sum, s) => sum + s.rows, 0) + snapshot.bufferedRows).toBe(bystanders.length + 1);
  });
});
