// The JSON text a WAL record keeps of a request's events. Usually the request's own text, so
// the request thread re-serialises nothing. But the log is on disk until its records are
// sealed, and what is not stored must not be there either: events that were rejected (an email
// address given as distinct_id), dropped (crawlers, duplicates) or sampled out, and `$ip`
// (spec 2, Events: never stored), whether an event property or a person or group property it
// sets. When the request holds any of these, the WAL gets a batch of the stored events alone,
// without `$ip`, and the decisions' indexes point into that batch.
import type { AcceptedEvent } from "../../storage/event-record.ts";
import { withoutIp } from "../../storage/ip-property.ts";

/**
 * The body to log for `toStore`, the decisions about events of `batch` (the request's parsed
 * events; `body` is their JSON text). `anyIp`: some stored event holds `$ip` (storage/ip-property.ts holdsIp).
 * Rewrites the decisions' indexes when it rebuilds the body.
 */
export function walBody(batch: readonly unknown[], body: Uint8Array, toStore: AcceptedEvent[], anyIp: boolean): Uint8Array {
  if (toStore.length === batch.length && !anyIp) return body;
  const stored = toStore.map((decision, position) => {
    const raw = batch[decision.index] as Record<string, unknown>;
    decision.index = position;
    return withoutIp(raw);
  });
  return new TextEncoder().encode(JSON.stringify({ batch: stored }));
}
