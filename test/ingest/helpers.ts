// Builders and HTTP helpers for the native ingest tests: events and bodies, a POST that checks
// the CORS headers every ingest response must carry, and reading the region's write-ahead log
// of a stopped service.
import { expect } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readWalRecords } from "../../storage/wal.ts";
import { decodeBatchRecord } from "../../storage/event-buffer.ts";
import type { EventBatchRecord } from "../../storage/event-record.ts";
import { createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

// Fields are loosely typed on purpose: tests send wrong types to see them rejected.
export type NativeEvent = Record<string, any>;

let sequence = 0;

/** A valid native event; `overrides` replace fields (a field set to `undefined` is left out of the JSON). */
export function nativeEvent(overrides: NativeEvent = {}): NativeEvent {
  return {
    uuid: Bun.randomUUIDv7(),
    event: "signed_up",
    timestamp: new Date(Date.now() - 1000).toISOString(),
    distinct_id: `user-${++sequence}`,
    properties: { plan: "pro" },
    lib: { name: "test-sdk", version: "1.2.3" },
    ...overrides,
  };
}

/** `count` valid events with small payloads (for the batch-size and rate tests). */
export const nativeEvents = (count: number, overrides: NativeEvent = {}): NativeEvent[] =>
  Array.from({ length: count }, () => nativeEvent(overrides));

export const nativeBody = (apiKey: string, batch: unknown[], extra: Record<string, unknown> = {}) => ({ api_key: apiKey, batch, ...extra });

export interface ExpectedRejection {
  uuid: string | null;
  reason: string;
  message: string;
}

export const duplicateMessage = "an event with this uuid was already accepted; it is stored once";
/** The answer's entry for an event already accepted. */
export const duplicate = (uuid: string | null) => ({ uuid, reason: "duplicate", message: duplicateMessage });

export const ok = (accepted: number, rejected: ExpectedRejection[] = [], quotaLimited: string[] = []) => ({
  accepted,
  rejected,
  quota_limited: quotaLimited,
});

/** The same instant written as RFC 3339 with seconds precision and a Z. */
export const rfc3339 = (epochMs: number) => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, "Z");

export const daysAgo = (days: number) => Date.now() - days * 86_400_000;

export const utf8Bytes = (value: string) => new TextEncoder().encode(value).byteLength;

/** An event whose JSON (as the client serialises it) is exactly `bytes` long, padded with a property. */
export function eventOfSize(bytes: number): NativeEvent {
  const event = nativeEvent({ properties: { padding: "" } });
  const padding = bytes - utf8Bytes(JSON.stringify(event));
  if (padding < 0) throw new Error(`an event cannot be as small as ${bytes} bytes`);
  event.properties = { padding: "x".repeat(padding) };
  expect(utf8Bytes(JSON.stringify(event))).toBe(bytes);
  return event;
}

export interface IngestReply {
  status: number;
  body: any;
  headers: Headers;
}

export interface PostOptions {
  /** Under /ingest/{region}; default /batch. */
  path?: string;
  region?: string;
  /** Query string without the `?`. */
  query?: string;
  headers?: Record<string, string>;
  /** Sent as is instead of JSON.stringify(payload). */
  raw?: string | Uint8Array;
}

/** Every ingest response, errors and preflights included, allows any origin, never credentials, and lets a script read Retry-After. */
export function expectCors(headers: Headers): void {
  expect({
    origin: headers.get("access-control-allow-origin"),
    credentials: headers.get("access-control-allow-credentials"),
    exposed: headers.get("access-control-expose-headers"),
  }).toEqual({ origin: "*", credentials: null, exposed: "Retry-After" });
}

/** POSTs to the ingest API and checks the CORS headers and the JSON content type of the answer. */
export async function postIngest(baseUrl: string, payload: unknown, options: PostOptions = {}): Promise<IngestReply> {
  const url = `${baseUrl}/ingest/${options.region ?? "eu"}${options.path ?? "/batch"}${options.query ? `?${options.query}` : ""}`;
  const headers: Record<string, string> = { "user-agent": "test-sdk/1.2.3", ...options.headers };
  let body: string | Uint8Array;
  if (options.raw !== undefined) {
    body = options.raw;
  } else {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(payload);
  }
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  let parsed: unknown = text === "" ? undefined : text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text so the assertion shows it
  }
  expectCors(response.headers);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Sends native events and checks that every one was accepted. */
export async function sendAccepted(baseUrl: string, apiKey: string, events: NativeEvent[]): Promise<void> {
  const reply = await postIngest(baseUrl, nativeBody(apiKey, events));
  expect([reply.status, reply.body]).toEqual([200, ok(events.length)]);
}

/**
 * Every record of a region's write-ahead log, read without opening it for writing (safe while
 * the service runs). Read before stopping: a clean stop seals the log into segments.
 */
export async function readWal(dataDir: string, region = "eu"): Promise<EventBatchRecord[]> {
  return [...readWalRecords(join(dataDir, region, "wal"))].map(({ payload }) => decodeBatchRecord(payload));
}

/** The bytes of every file of a region's write-ahead log as text: what is on disk, however records decode. */
export function walFilesText(dataDir: string, region = "eu"): string {
  const walDir = join(dataDir, region, "wal");
  return readdirSync(walDir).map((name) => readFileSync(join(walDir, name)).toString("latin1")).join("\n");
}

export interface DedicatedService {
  service: TestService;
  owner: SignedUpUser;
  project: any;
  /** The production public key of `project` (region eu). */
  key: string;
  /** Every public key of `project` (production, staging, development). */
  publicKeys: any[];
  /** Returns every record of its eu write-ahead log, then stops the service (once). */
  stopAndReadWal(): Promise<EventBatchRecord[]>;
  /** Stops the service if still running and deletes its DATA_DIR. */
  dispose(): Promise<void>;
}

/** A service of its own with an owner and one eu project, for tests that read what was stored. */
export async function startDedicatedService(env: Record<string, string> = {}): Promise<DedicatedService> {
  const service = await startTestService(env);
  let running = true;
  const stop = async () => {
    if (running) await service.stop();
    running = false;
  };
  try {
    const owner = await signUp(service, "Ingest owner");
    const { project, public_keys } = await createProject(owner, "Stored", "eu");
    return {
      service,
      owner,
      project,
      key: public_keys[0].key,
      publicKeys: public_keys,
      async stopAndReadWal() {
        const records = await readWal(service.dataDir);
        await stop();
        return records;
      },
      async dispose() {
        await stop();
        rmSync(service.dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await service.close();
    throw error;
  }
}

/** The stored events of one project, in log order. */
export const storedEvents = (records: EventBatchRecord[], projectId: string) =>
  records.filter((record) => record.project_id === projectId).flatMap((record) => record.events);

/** The 31st of the latest past month that has 30 days: fits the RFC 3339 grammar but names no day. */
export function nonexistentDay(): string {
  const now = new Date();
  for (let back = 1; ; back++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    const days = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 0)).getUTCDate();
    if (days === 30) return `${month.getUTCFullYear()}-${String(month.getUTCMonth() + 1).padStart(2, "0")}-31T12:00:00Z`;
  }
}
