// Events, decisions and watchers for the live hub's and stream's own tests (no HTTP).
import type { AcceptedEvent, Location } from "../../../storage/event-record.ts";
import type { ValidEvent } from "../../../server/ingest/validate-event.ts";
import type { LiveWatcher } from "../../../server/region/live/live-stream.ts";
import { sseMessage } from "../../../server/http/sse.ts";

export const nowhere: Location = { country: null, region: null, city: null, timezone: null };

let sequence = 0;

export function validEvent(overrides: Partial<ValidEvent> = {}): ValidEvent {
  return {
    uuid: Bun.randomUUIDv7(),
    event: "clicked",
    timestamp: Date.now(),
    distinctId: `user-${++sequence}`,
    properties: {},
    libName: "test",
    libVersion: "1.0.0",
    anonId: null,
    sessionId: null,
    windowId: null,
    set: null,
    setOnce: null,
    groups: null,
    consent: "granted",
    ...overrides,
  };
}

/** One instant for every stored event of a test file, so two calls to storedAs compare equal. */
const storedAt = Date.now();

export const storedAs = (index: number, personIndex = 0): AcceptedEvent => ({ index, timestamp: storedAt, sampleRate: 1, isSuspect: false, personIndex, location: 0 });

export const watcher = (overrides: Partial<LiveWatcher> = {}): LiveWatcher => ({
  filter: { events: null, distinctIds: null, properties: [] },
  pii: true,
  expiresAt: Date.now() + 60_000,
  stillAllowed: () => true,
  ...overrides,
});

/** An SSE event message of exactly `bytes` bytes (its data a JSON string of x's). */
export function messageOf(bytes: number): Uint8Array {
  const overhead = sseMessage({ event: "event", data: '""' }).byteLength;
  const message = sseMessage({ event: "event", data: JSON.stringify("x".repeat(bytes - overhead)) });
  if (message.byteLength !== bytes) throw new Error(`no message of ${bytes} bytes`);
  return message;
}
