// What the write-ahead log holds for accepted events: one record per ingest request, JSON
// of the project's identity and its normalized events. Column builders and replay read it.

export interface StoredEvent {
  uuid: string;
  event: string;
  /** Epoch milliseconds (corrected for clock skew). */
  timestamp: number;
  distinct_id: string;
  anon_id: string | null;
  session_id: string | null;
  window_id: string | null;
  lib_name: string;
  lib_version: string;
  consent: "granted" | "pending" | "cookieless";
  /** Share of events kept by sampling (1 when not sampled); each stored event stands for 1/sample_rate. */
  sample_rate: number;
  geo_country: string | null;
  geo_region: string | null;
  geo_city: string | null;
  geo_timezone: string | null;
  is_suspect: boolean;
  groups: Record<string, string> | null;
  set: Record<string, unknown> | null;
  set_once: Record<string, unknown> | null;
  properties: Record<string, unknown>;
}

export interface EventBatchRecord {
  project_id: string;
  data_id: number;
  environment: string;
  /** Epoch milliseconds when the region received the request. */
  received_at: number;
  events: StoredEvent[];
}

export const encodeBatchRecord = (record: EventBatchRecord): Uint8Array => new TextEncoder().encode(JSON.stringify(record));
export const decodeBatchRecord = (payload: Uint8Array): EventBatchRecord => JSON.parse(new TextDecoder().decode(payload));
