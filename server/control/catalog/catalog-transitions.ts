// Status changes a person makes (PATCH and create; docs/catalog.md, "Statuses"). A sync moves
// `planned` to `implemented` and creates `unplanned` events (catalog-merge.ts); by hand, an
// event is verified once implemented, an unplanned one is adopted into the plan as implemented,
// anything can be deprecated and a deprecated one brought back. Nothing becomes `unplanned` by
// hand (only data shows an event is sent outside the plan), and an event the data has shown
// does not go back to `planned`.
import { validation } from "../../http/errors.ts";
import type { CatalogStatus } from "./catalog-schemas.ts";

const nextStatuses: Record<CatalogStatus, readonly CatalogStatus[]> = {
  planned: ["implemented", "deprecated"],
  implemented: ["verified", "deprecated"],
  verified: ["implemented", "deprecated"],
  unplanned: ["implemented", "deprecated"],
  deprecated: ["planned", "implemented"],
};

/** A new event is planned, or documents one already sent. */
const initialStatuses: readonly CatalogStatus[] = ["planned", "implemented"];

const listed = (statuses: readonly CatalogStatus[]) => statuses.join(" or ");
const withArticle = (status: CatalogStatus) => `${/^[aeiou]/.test(status) ? "an" : "a"} ${status}`;

/** 400 unless an event in `from` may be set to `to` by hand (the same status is no change). */
export function requireTransition(from: CatalogStatus, to: CatalogStatus): void {
  if (from === to || nextStatuses[from].includes(to)) return;
  throw validation(`status cannot change from ${from} to ${to}; ${withArticle(from)} event can become ${listed(nextStatuses[from])}`);
}

export function requireInitialStatus(status: CatalogStatus): void {
  if (!initialStatuses.includes(status)) {
    throw validation(`a new event's status must be ${listed(initialStatuses)}; ${status} comes later (unplanned events come from a sync)`);
  }
}
