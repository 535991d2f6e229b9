// Whether the region serves a flag as it now is (web/console/pages/flags/publication-status.ts):
// a configuration changed at T is served once a publication of its environment recorded at or
// after T is published; until then the newest such publication says pending or failed, and why.
import { expect, test } from "bun:test";
import type { FlagDto, FlagPublication } from "../../../web/console/api/flags-api.ts";
import { publicationState, publicationSummary } from "../../../web/console/pages/flags/publication-status.ts";

const config = (environment: string, updated_at: string) => ({
  environment, enabled: true, payload: null, rules: [], salt: "", stickiness: "distinct_id", variants: [], version: 2, updated_at, updated_by: null,
});
const flag: FlagDto = {
  id: "f", project_id: "p", key: "k", name: "K", kind: "boolean", tags: [], created_at: "", updated_at: "", archived_at: null, created_by: null, description: null, experiment_id: null, owner_id: null,
  environments: { production: config("production", "2026-11-27T10:00:00.000Z"), staging: config("staging", "2026-11-27T10:00:00.000Z"), development: config("development", "2026-11-27T09:00:00.000Z") },
};
const publication = (environment: string, version: number, created_at: string, status: FlagPublication["status"], error: string | null = null): FlagPublication => ({
  id: `${environment}-${version}`, environment, version, checksum: "c", created_at, status, error, published_at: status === "published" ? created_at : null,
});

const publications = [
  // production: an older published snapshot, then the one carrying the change, published.
  publication("production", 1, "2026-11-27T09:00:00.000Z", "published"),
  publication("production", 2, "2026-11-27T10:00:00.001Z", "published"),
  // staging: the older snapshot is published, the one with the change failed.
  publication("staging", 1, "2026-11-27T09:00:00.000Z", "published"),
  publication("staging", 2, "2026-11-27T10:00:00.000Z", "failed", "region eu is not live"),
  // development: the change was published, a later one (another flag's) is still pending.
  publication("development", 1, "2026-11-27T09:00:00.000Z", "published"),
  publication("development", 2, "2026-11-27T09:30:00.000Z", "pending"),
];

test("each environment's state follows the publications recorded since its configuration changed", () => {
  expect(publicationState(flag, "production", publications)).toEqual({ status: "published", version: 2, at: "2026-11-27T10:00:00.001Z" });
  expect(publicationState(flag, "staging", publications)).toEqual({ status: "failed", version: 2, error: "region eu is not live" });
  expect(publicationState(flag, "development", publications)).toEqual({ status: "published", version: 1, at: "2026-11-27T09:00:00.000Z" });
  expect(publicationState(flag, "production", publications.slice(0, 1))).toEqual({ status: "none" });
  expect(publicationState(flag, "production", [publication("production", 3, "2026-11-27T10:00:01.000Z", "pending")])).toEqual({ status: "pending", version: 3 });
  expect(publicationState({ ...flag, archived_at: "2026-11-27T11:00:00.000Z" }, "production", publications)).toEqual({ status: "archived" });
});

test("the list's one line names the environments that failed first, then those still waiting", () => {
  expect(publicationSummary(flag, ["production", "staging", "development"], publications)).toEqual({ tone: "failed", text: "Failed in staging" });
  expect(publicationSummary(flag, ["production", "development"], publications)).toEqual({ tone: "ok", text: "Published" });
  expect(publicationSummary(flag, ["production", "development"], publications.slice(0, 1))).toEqual({ tone: "pending", text: "Pending in production, development" });
});
