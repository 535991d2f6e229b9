// An event's kind follows from its name (docs/catalog.md, "Kinds"): the service's own `$` names
// say what they record, any other `$` name is a system event, and every other name is custom.
import type { EventKind } from "./catalog-schemas.ts";

const kindOfReservedName: ReadonlyMap<string, EventKind> = new Map([
  ["$pageview", "pageview"],
  ["$pageleave", "pageview"],
  ["$screen", "screen"],
  ["$autocapture", "autocapture"],
  ["$rageclick", "autocapture"],
  ["$identify", "identify"],
  ["$create_alias", "identify"],
  ["$set", "identify"],
  ["$groupidentify", "group"],
]);

export function eventKind(name: string): EventKind {
  if (!name.startsWith("$")) return "custom";
  return kindOfReservedName.get(name) ?? "system";
}
