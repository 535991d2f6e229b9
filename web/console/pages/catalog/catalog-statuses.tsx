// The statuses of a tracking plan's events as people read them, and the changes a person may
// make (docs/catalog.md, "Statuses"); the control plane refuses any other with a message.
import type { CatalogStatus } from "../../api/catalog.ts";

export const statusLabels: Record<CatalogStatus, string> = {
  planned: "Planned",
  implemented: "Implemented",
  verified: "Verified",
  unplanned: "Unplanned",
  deprecated: "Deprecated",
};

export const statusTones: Record<CatalogStatus, string> = {
  planned: "badge-accent",
  implemented: "badge-success",
  verified: "badge-success",
  unplanned: "badge-warning",
  deprecated: "badge-danger",
};

const transitions: Record<CatalogStatus, readonly CatalogStatus[]> = {
  planned: ["implemented", "deprecated"],
  implemented: ["verified", "deprecated"],
  verified: ["implemented", "deprecated"],
  unplanned: ["implemented", "deprecated"],
  deprecated: ["planned", "implemented"],
};

/** The status an event has, then those it may take next. */
export const statusChoices = (current: CatalogStatus): CatalogStatus[] => [current, ...transitions[current]];

export function StatusBadge({ status }: { status: CatalogStatus }) {
  return <span class={`badge ${statusTones[status]}`}>{statusLabels[status]}</span>;
}
