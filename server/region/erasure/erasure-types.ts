// What the control plane asks a region to erase, and what the region answers (RegionLink.erase).
// The report names no identifier, only their hashes: it becomes the signed certificate.

/** Person ids and distinct ids one erasure request names together, at most (the control plane enforces it too). */
export const erasureIdentifiersMax = 100;

export interface RegionErasureRequest {
  /** A uuid the control plane chose: the region's job key (asking again answers the same report). */
  erasure_id: string;
  project_id: string;
  data_id: number;
  environment: string;
  /** Person uuids named by the request. */
  person_ids: string[];
  /** Distinct ids named by the request. */
  distinct_ids: string[];
}

/** The stores an erasure removes from, each counted in RegionErasureReport.removed (every key always present). */
export const erasureStores = [
  "events_parquet", "events_segments", "events_unsealed", "wal_records", "quarantined_records", "persons", "distinct_ids", "merges", "group_links",
  "cohort_memberships", "replay_sessions", "replay_chunks", "ingestion_warning_examples", "live_events", "cache_entries",
  "ask_messages",
] as const;

export type ErasureStore = (typeof erasureStores)[number];
export type ErasureCounts = Record<ErasureStore, number>;

export const noErasureCounts = (): ErasureCounts => Object.fromEntries(erasureStores.map((store) => [store, 0])) as ErasureCounts;

export interface RegionErasureReport {
  erasure_id: string;
  /**
   * SHA-256 hex of `${project_id}:person_id:${id}` and `${project_id}:distinct_id:${id}` for every
   * erased identifier (the named ones plus every distinct id and person id linked to the same
   * persons), sorted. Never the identifiers.
   */
  identifier_hashes: string[];
  /** Current persons erased (a person merged into another counts with it, in removed.persons). */
  persons_erased: number;
  /** Counts removed per store (erasureStores). */
  removed: Record<string, number>;
  /**
   * SHA-256 hex of the canonical JSON of the project's live manifest entries after the erasure,
   * in every environment of the project in the region: `[{environment, parts, segments}]`
   * sorted by environment (manifestDigest in region-erasures.ts).
   */
  manifest_digest: string;
  /** RFC 3339. */
  completed_at: string;
}

/** Told each stage as it starts (`done` of `total` stages finished). */
export type ErasureProgress = (stage: string, done: number, total: number) => void;
