// The baseline for the cost of person resolution: the service exactly as `npm start` runs it,
// except that ingest skips the person store. Each distinct id gets the next dense index of its
// project from an in-memory map instead, so storage sorts and encodes one run of rows per user
// with indexes like the person store's; what differs is the person store alone.
// Benchmark use only (it loses identity); bench/ingest/run.ts starts it next to the real one.
import { PersonStore, type IdentityEvent } from "../../storage/person-store.ts";

const indexes = new Map<string, Map<string, number>>();

PersonStore.prototype.attribute = function (projectId: string, events: IdentityEvent[]): number[] {
  let project = indexes.get(projectId);
  if (!project) indexes.set(projectId, (project = new Map()));
  const known = project;
  return events.map((event) => {
    let index = known.get(event.distinctId);
    if (index === undefined) known.set(event.distinctId, (index = known.size));
    return index;
  });
};

await import("../../server/main.ts");
