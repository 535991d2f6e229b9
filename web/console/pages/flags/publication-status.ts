// Whether the region serves a flag's configuration as it now is in an environment. Every flag
// write records, in the same transaction, a publication of each environment it changed (a
// snapshot of every live flag there, docs/flags.md) and then pushes it; the region keeps the
// newest it is given. So a configuration last changed at `updated_at` is in the region once a
// publication of its environment recorded at or after that time is published; until then the
// newest such publication says whether it is pending or failed, and why.
import type { FlagDto, FlagPublication } from "../../api/flags-api.ts";

export type PublicationState =
  | { status: "published"; version: number; at: string }
  | { status: "pending"; version: number }
  | { status: "failed"; version: number; error: string }
  | { status: "archived" }
  | { status: "none" };

export function publicationState(flag: FlagDto, environment: string, publications: readonly FlagPublication[]): PublicationState {
  if (flag.archived_at !== null) return { status: "archived" };
  const config = flag.environments[environment];
  if (!config) return { status: "none" };
  const carrying = publications
    .filter((publication) => publication.environment === environment && publication.created_at >= config.updated_at)
    .sort((a, b) => a.version - b.version);
  const published = carrying.find((publication) => publication.status === "published");
  if (published) return { status: "published", version: published.version, at: published.published_at ?? published.created_at };
  const newest = carrying.at(-1);
  if (!newest) return { status: "none" };
  if (newest.status === "failed") return { status: "failed", version: newest.version, error: newest.error ?? "the push to the region failed" };
  return { status: "pending", version: newest.version };
}

/** One line for the list: published everywhere, or the environments still waiting or failed. */
export function publicationSummary(flag: FlagDto, environments: readonly string[], publications: readonly FlagPublication[]): { tone: "ok" | "pending" | "failed" | "muted"; text: string } {
  if (flag.archived_at !== null) return { tone: "muted", text: "Archived: not served" };
  const states = environments.map((environment) => [environment, publicationState(flag, environment, publications)] as const);
  const failed = states.filter(([, state]) => state.status === "failed").map(([environment]) => environment);
  if (failed.length > 0) return { tone: "failed", text: `Failed in ${failed.join(", ")}` };
  const waiting = states.filter(([, state]) => state.status !== "published").map(([environment]) => environment);
  if (waiting.length > 0) return { tone: "pending", text: `Pending in ${waiting.join(", ")}` };
  return { tone: "ok", text: "Published" };
}
