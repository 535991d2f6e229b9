// The region's ingestion warnings (README, "Ingestion warnings"; server/region/ingestion-warnings-routes.ts):
// what ingest refused or changed in the token's project environment, by reason and message.
import { queryString, regionJson } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";

export const warningReasons = ["invalid", "too_large", "reserved_name", "clock_skew", "duplicate", "pseudonymised_id", "plan_violation", "webhook_unauthenticated"] as const;
export type WarningReason = (typeof warningReasons)[number];

export interface WarningEntry {
  reason: WarningReason;
  message: string;
  count: number;
  first_seen: string;
  last_seen: string;
  /** The sender's event as JSON text, cut at 1,000 characters and masked: data to show as text. */
  example: string;
  /** Newest first. */
  days: { day: string; count: number }[];
}

export interface WarningList {
  from: string;
  to: string;
  results: WarningEntry[];
}

/** `from` and `to` are UTC days (YYYY-MM-DD), both included. */
export const listIngestionWarnings = (tokens: RegionTokenSource, filter: { reason?: WarningReason | null; from: string; to: string }) =>
  regionJson<WarningList>(tokens, "GET", `/ingestion/warnings${queryString(filter)}`);
