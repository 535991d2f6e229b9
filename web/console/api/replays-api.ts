// The region's replay routes (docs/replay.md): recordings listed with filters and cursors, one
// recording with its blocks and the session's analytics events, a block's rrweb events, and the
// project's replay policy. Everything in a recording came from a browser we do not control:
// pages show its fields as text, and its DOM only inside the player's sandboxed iframe.
import type { Page } from "./persons-api.ts";
import type { RegionTokenSource } from "./region-token.ts";
import { queryString, regionJson } from "./region-api.ts";

export const replayPlatforms = ["web", "ios", "android", "react-native", "tauri"] as const;

export interface Replay {
  id: string;
  distinct_id: string;
  person_id: string | null;
  environment: string;
  platform: string;
  mode: string;
  start_time: string;
  end_time: string;
  duration_seconds: number;
  active_seconds: number;
  first_url: string | null;
  urls: string[];
  page_count: number;
  click_count: number;
  keypress_count: number;
  console_error_count: number;
  chunk_count: number;
  event_count: number;
  size_bytes: number;
}

export interface ReplayBlock {
  name: string;
  start_time: string;
  end_time: string;
  event_count: number;
  size_bytes: number;
}

/** An analytics event sent during the recorded session (its `session_id` is the recording's). */
export interface ReplaySessionEvent {
  uuid: string;
  event: string;
  timestamp: string;
  current_url: string | null;
}

export interface ReplayDetail extends Replay {
  blocks: ReplayBlock[];
  events: ReplaySessionEvent[];
}

/** An rrweb event as a block holds it; the player reads only `type` and `timestamp` itself. */
export interface RecordedEvent {
  type: number;
  timestamp: number;
  data: unknown;
}

/** GET /replays's filters; each is left out when not set. */
export interface ReplayFilter {
  person_id?: string;
  distinct_id?: string;
  /** RFC 3339: recordings that started at or after. */
  from?: string;
  to?: string;
  /** Seconds. */
  duration_min?: string;
  duration_max?: string;
  url?: string;
  event?: string;
  has_errors?: "true";
  platform?: string;
}

export interface ReplayPolicy {
  sample_rate: number;
  min_duration_ms: number;
  flag_key: string | null;
  updated_at: string | null;
}

const id = encodeURIComponent;

export const listReplays = (tokens: RegionTokenSource, filter: ReplayFilter, cursor: string | null, limit: number) =>
  regionJson<Page<Replay>>(tokens, "GET", `/replays${queryString({ ...filter, limit, cursor })}`);
export const getReplay = (tokens: RegionTokenSource, replayId: string) => regionJson<ReplayDetail>(tokens, "GET", `/replays/${id(replayId)}`);
export const replayBlockEvents = (tokens: RegionTokenSource, replayId: string, block: string) =>
  regionJson<{ events: RecordedEvent[] }>(tokens, "GET", `/replays/${id(replayId)}/blocks/${id(block)}`).then(({ events }) => events);
export const getReplayPolicy = (tokens: RegionTokenSource) => regionJson<ReplayPolicy>(tokens, "GET", "/replays/policy");
export const putReplayPolicy = (tokens: RegionTokenSource, policy: Omit<ReplayPolicy, "updated_at">) => regionJson<ReplayPolicy>(tokens, "PUT", "/replays/policy", policy);

/** Every event of a recording, its blocks read in order (oldest first, as the region lists them). */
export async function recordingEvents(tokens: RegionTokenSource, replay: ReplayDetail): Promise<RecordedEvent[]> {
  const blocks = await Promise.all(replay.blocks.map((block) => replayBlockEvents(tokens, replay.id, block.name)));
  return blocks.flat();
}
