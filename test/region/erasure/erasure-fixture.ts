// A region seeded for erasure tests over real HTTP: persons whose data sits in every store the
// erasure reaches (Parquet parts, sealed segments, unsealed buffers and the WAL, persons and a
// merge, a cohort membership, group links, a replay, an ingestion warning example, live events,
// cached answers), the one to erase marked by a token ("zq81x") in every identifier and value.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join, relative } from "node:path";
import { expect } from "bun:test";
import type { TestService } from "../../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { nativeBody, nativeEvent, postIngest, rfc3339, sendAccepted, type NativeEvent } from "../../ingest/helpers.ts";
import { inputEvent, pageStart, postReplay, replayBody, replayChunk } from "../../ingest/replay/helpers.ts";
import { readParquetTable } from "../../../storage/data-files.ts";
import { vectorValues } from "../../../storage/arrow-vectors.ts";
import { writeFileAtomic } from "../../../storage/atomic-file.ts";
import { quarantinePath } from "../../../storage/event-store.ts";

/** In every identifier and value of the person erased, and nowhere else. */
export const erasedMark = "zq81x";
export const erasee = { anon: `anon-${erasedMark}-device`, user: `user-${erasedMark}`, email: `${erasedMark}.person@example.org` };
export const keepers = ["keep-a", "keep-b", "keep-c"];
export const cohortId = "0193a7c2-5555-7000-8000-0000000000e1";

export interface Seeded {
  projectId: string;
  dataId: number;
  key: string;
  /** A personal access token that issues region tokens for the project. */
  patSecret: string;
  /** Events of the person erased, and of the others, as sent. */
  erasedEvents: NativeEvent[];
  keptEvents: NativeEvent[];
  /** The erased person's uuid before the erasure. */
  erasedPersonId: string;
}

let clock = Date.now() - 3_600_000;
const at = (overrides: NativeEvent) => nativeEvent({ timestamp: rfc3339((clock += 1000)), properties: {}, ...overrides });

export const regionCall = (service: TestService, method: string, path: string, token: string, body?: unknown) =>
  call(service.url, method, `/region/eu${path}`, { headers: bearer(token), body });

/** Sends the seed in three steps: compacted into Parquet, sealed into segments, left unsealed. */
export async function seedRegion(service: TestService): Promise<Seeded> {
  const owner = await signUp(service, "Erasure owner");
  const created = await createProject(owner, "Erasable", "eu");
  const projectId = created.project.id as string;
  const key = created.public_keys[0].key as string;
  const patSecret = (await createToken(owner, ["cohorts:write", "persons:read", "persons.pii", "query:read"])).secret;
  const node = service.nodes.get("eu")!;
  const erasedEvents: NativeEvent[] = [];
  const keptEvents: NativeEvent[] = [];
  const send = async (events: NativeEvent[]) => {
    for (const event of events) (event.distinct_id.includes(erasedMark) ? erasedEvents : keptEvents).push(event);
    await sendAccepted(service.url, key, events);
  };
  // Step 1, compacted: the device's anonymous person, the user's person, the $identify that merges them.
  await send([
    at({ distinct_id: erasee.anon, event: "$pageview", properties: { note: `quokka-${erasedMark}-note` } }),
    at({ distinct_id: keepers[0], event: "$pageview", properties: { favourite: "apricot" }, $set: { email: "keep.a@example.org" } }),
    at({ distinct_id: erasee.user, event: "clicked", groups: { company: "acme" }, properties: { favourite: `marmalade-${erasedMark}` } }),
    at({ distinct_id: keepers[1], event: "clicked", groups: { company: "acme" } }),
    at({ distinct_id: erasee.user, event: "$identify", properties: { $anon_distinct_id: erasee.anon }, $set: { email: erasee.email, favourite: `marmalade-${erasedMark}` } }),
  ]);
  await node.events.flush();
  // Step 2, sealed.
  await send([
    at({ distinct_id: erasee.user, event: "purchased", groups: { company: "acme" }, properties: { amount: 42, coupon: `coupon-${erasedMark}` } }),
    at({ distinct_id: keepers[2], event: "purchased", properties: { amount: 7 } }),
    at({ distinct_id: erasee.anon, event: "$pageview" }),
  ]);
  await node.events.seal();
  // Step 3, unsealed (in the buffers and the WAL).
  await send([
    at({ distinct_id: keepers[0], event: "clicked" }),
    at({ distinct_id: erasee.user, event: "clicked", properties: { search: `query-${erasedMark}` } }),
  ]);
  // An ingestion warning whose example shows the user's distinct id.
  const rejected = await postIngest(service.url, nativeBody(key, [at({ distinct_id: erasee.user, event: `$bogus_${erasedMark}` })]));
  expect(rejected.status).toBe(200);
  // WAL records the store could not read, set aside in quarantine/: one of the user's, one of a keeper's.
  quarantineRecord(node.dataDir, projectId, erasee.user, 1);
  quarantineRecord(node.dataDir, projectId, keepers[0]!, 2);
  // A replay: one chunk compacted into a block, one still in the replay log.
  const start = Date.now() - 120_000;
  const sessionId = Bun.randomUUIDv7();
  const chunk = (seq: number, distinctId: string, session: string, text: string) =>
    replayChunk({ session_id: session, seq, distinct_id: distinctId, events: [...pageStart(start + seq * 1000, "https://shop.example/"), inputEvent(start + seq * 1000 + 10, text)] });
  expect((await postReplay(service.url, replayBody(key, [chunk(0, erasee.user, sessionId, `typed-${erasedMark}-secret`)]))).status).toBe(200);
  expect((await postReplay(service.url, replayBody(key, [chunk(0, keepers[0]!, Bun.randomUUIDv7(), "typed-by-keeper")]))).status).toBe(200);
  await node.maintainReplays();
  expect((await postReplay(service.url, replayBody(key, [chunk(1, erasee.user, sessionId, `more-${erasedMark}-typing`)]))).status).toBe(200);
  // A static cohort holding the user and a keeper.
  const writer = await regionTokenFor(service, patSecret, projectId, ["cohorts:write"]);
  const cohort = await regionCall(service, "POST", `/cohorts/${cohortId}/static`, writer, { add: [{ distinct_id: erasee.user }, { distinct_id: keepers[0] }] });
  expect([cohort.status, cohort.body.size]).toEqual([200, 2]);
  const reader = await regionTokenFor(service, patSecret, projectId, ["persons:read"]);
  const person = await regionCall(service, "GET", `/persons?search=${erasee.user}`, reader);
  expect(person.body.results).toHaveLength(1);
  return {
    projectId, dataId: node.store.projectDataId(projectId)!, key, patSecret, erasedEvents, keptEvents, erasedPersonId: person.body.results[0].id,
  };
}

/**
 * Sets aside a record as EventStore.addWalRecord does with one it cannot read: the payload's
 * header names the project, its body is the request's JSON text; an unknown format byte first.
 */
export function quarantineRecord(regionDir: string, projectId: string, distinctId: string, offset: number): void {
  const header = JSON.stringify({ project_id: projectId });
  const body = JSON.stringify({ batch: [{ event: "clicked", distinct_id: distinctId, properties: {} }] });
  writeFileAtomic(join(regionDir, quarantinePath({ file: 1, offset })), `\u00ff${header}${body}`);
}

/** The project's events counted by a trends query: total events and unique persons, in the last day. */
export async function eventTotals(service: TestService, seeded: Seeded): Promise<{ events: number; persons: number }> {
  const token = await regionTokenFor(service, seeded.patSecret, seeded.projectId, ["query:read"]);
  const reply = await regionCall(service, "POST", "/query", token, {
    query: { ir_version: 1, date_range: { from: "-2d" }, insight: { kind: "trends", interval: "day", series: [{ event: null, math: "total" }, { event: null, math: "unique_persons" }] } },
    refresh: true,
  });
  expect(reply.status).toBe(200);
  return { events: reply.body.result.rows[0].total, persons: reply.body.result.rows[1].total };
}

function* filesUnder(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** Text of a file to search: its bytes, decompressed when compressed, and a Parquet file's values as read back. */
function searchableTexts(path: string): string[] {
  const bytes = readFileSync(path);
  const texts = [bytes.toString("latin1")];
  if (path.endsWith(".zst")) texts.push(Buffer.from(Bun.zstdDecompressSync(bytes)).toString("utf8"));
  if (path.endsWith(".gz")) texts.push(gunzipSync(bytes).toString("utf8"));
  if (path.endsWith(".parquet")) {
    const table = readParquetTable(path);
    texts.push(table.schema.fields.map((field) => `${field.name}:${JSON.stringify(vectorValues(table.getChild(field.name)!))}`).join("\n"));
  }
  return texts;
}

/** The files under the data directory (control.sqlite left out: the control plane's side) whose text holds `needle`, by path. */
export function filesHolding(dataDir: string, needle: string): string[] {
  const found: string[] = [];
  for (const path of filesUnder(dataDir)) {
    if (relative(dataDir, path).startsWith("control.sqlite")) continue;
    if (searchableTexts(path).some((text) => text.includes(needle))) found.push(relative(dataDir, path));
  }
  return found.sort();
}
