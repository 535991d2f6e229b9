// The baseline for the cost of person resolution: the service exactly as `npm start` runs it,
// except that ingest skips the person store. Each event's person index is a hash of its
// distinct id instead, so storage still sorts and encodes one run of rows per user, as it
// did (by distinct id) before persons existed; what differs is the person store alone.
// Benchmark use only (it loses identity); bench/ingest/run.ts starts it next to the real one.
import { PersonStore, type IdentityEvent } from "../../storage/person-store.ts";

PersonStore.prototype.attribute = function (_projectId: string, events: IdentityEvent[]): number[] {
  return events.map((event) => Bun.hash.crc32(event.distinctId) & 0x7fffffff);
};

await import("../../server/main.ts");
