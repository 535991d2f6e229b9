// The answer shapes of the flag endpoints, built from evaluation results. Pure: the request id
// and the evaluation time come from the caller.
//
// | endpoint                             | builder                  |
// | our own POST /flags                  | nativeFlagsResponse      |
// | /flags?v=2, /decide?v=4              | posthogFlagsV2Response   |
// | /flags (no v, v=1), /decide?v=3      | posthogLegacyResponse    |
// | /decide?v=2                          | posthogDecideV2Response  |
// | /decide?v=1                          | posthogDecideV1Response  |

import type { FlagDefinition, FlagReason, FlagResult } from "./types.ts";
import { posthogPayloadText } from "./payloads.ts";

export interface PosthogResponseOptions {
  /** A UUID identifying this evaluation (SDKs attach it to $feature_flag_called). */
  requestId: string;
  /** When the flags were evaluated, in Unix epoch milliseconds. */
  evaluatedAtMs: number;
  /** Merge NO_REPLAY_CONFIG_FIELDS into the answer: /decide always, /flags when `config=true`. */
  includeConfig: boolean;
}

/** The client configuration of a server without session replay, surveys or heatmaps. */
export const NO_REPLAY_CONFIG_FIELDS = {
  supportedCompression: ["gzip", "gzip-js"],
  sessionRecording: false,
  surveys: false,
  heatmaps: false,
  capturePerformance: false,
  autocaptureExceptions: false,
  isAuthenticated: false,
  toolbarParams: {},
  config: { enable_collect_everything: true },
} as const;

export type FlagValue = boolean | string;

export interface NativeFlagsResponse {
  flags: Record<string, { enabled: boolean; variant: string | null; payload: unknown | null; reason: FlagReason }>;
}

export interface PosthogFlagDetail {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: FlagReason;
  metadata: { id: number; version: number; description: null; payload: string | null };
}

type ConfigFields = Partial<typeof NO_REPLAY_CONFIG_FIELDS>;

interface Envelope {
  requestId: string;
  evaluatedAt: number;
}

export type PosthogFlagsV2Response = {
  errorsWhileComputingFlags: false;
  flags: Record<string, PosthogFlagDetail>;
} & Envelope & ConfigFields;

export type PosthogLegacyResponse = {
  errorsWhileComputingFlags: false;
  featureFlags: Record<string, FlagValue>;
  /** Payloads of enabled flags only, as JSON text. */
  featureFlagPayloads: Record<string, string>;
} & Envelope & ConfigFields;

export type PosthogDecideV2Response = { featureFlags: Record<string, FlagValue> } & Envelope & ConfigFields;

export type PosthogDecideV1Response = { featureFlags: string[] } & Envelope & ConfigFields;

/** Our own POST /flags: payloads as they were stored, not as JSON text. */
export function nativeFlagsResponse(results: readonly FlagResult[]): NativeFlagsResponse {
  const flags: NativeFlagsResponse["flags"] = {};
  for (const result of results) {
    flags[result.key] = {
      enabled: result.enabled,
      variant: result.variant,
      payload: result.payload,
      reason: result.reason,
    };
  }
  return { flags };
}

/** /flags?v=2 and /decide?v=4. `flags` supplies each result's id and version. */
export function posthogFlagsV2Response(
  results: readonly FlagResult[],
  flags: readonly FlagDefinition[],
  options: PosthogResponseOptions,
): PosthogFlagsV2Response {
  const flagsByKey = new Map(flags.map((flag) => [flag.key, flag]));
  const details: Record<string, PosthogFlagDetail> = {};
  for (const result of results) {
    const flag = flagsByKey.get(result.key);
    if (flag === undefined) throw new Error(`no definition among the flags for result "${result.key}"`);
    details[result.key] = {
      key: result.key,
      enabled: result.enabled,
      variant: result.variant,
      reason: result.reason,
      metadata: {
        id: flag.id,
        version: flag.version,
        description: null,
        payload: posthogPayloadText(result.payload),
      },
    };
  }
  return { errorsWhileComputingFlags: false, flags: details, ...envelope(options) };
}

/** /flags without v (or v=1) and /decide?v=3: every flag's value, enabled flags' payloads. */
export function posthogLegacyResponse(
  results: readonly FlagResult[],
  options: PosthogResponseOptions,
): PosthogLegacyResponse {
  const featureFlags: Record<string, FlagValue> = {};
  const featureFlagPayloads: Record<string, string> = {};
  for (const result of results) {
    featureFlags[result.key] = flagValue(result);
    const payloadText = result.enabled ? posthogPayloadText(result.payload) : null;
    if (payloadText !== null) featureFlagPayloads[result.key] = payloadText;
  }
  return { errorsWhileComputingFlags: false, featureFlags, featureFlagPayloads, ...envelope(options) };
}

/** /decide?v=2: the values of enabled flags only. */
export function posthogDecideV2Response(
  results: readonly FlagResult[],
  options: PosthogResponseOptions,
): PosthogDecideV2Response {
  const featureFlags: Record<string, FlagValue> = {};
  for (const result of results) {
    if (result.enabled) featureFlags[result.key] = flagValue(result);
  }
  return { featureFlags, ...envelope(options) };
}

/** /decide?v=1: the keys of enabled flags. */
export function posthogDecideV1Response(
  results: readonly FlagResult[],
  options: PosthogResponseOptions,
): PosthogDecideV1Response {
  const featureFlags = results.filter((result) => result.enabled).map((result) => result.key);
  return { featureFlags, ...envelope(options) };
}

/** PostHog's flag value: the variant when there is one, else whether the flag is on. */
export function flagValue(result: FlagResult): FlagValue {
  return result.variant ?? result.enabled;
}

function envelope(options: PosthogResponseOptions): Envelope & ConfigFields {
  const ids = { requestId: options.requestId, evaluatedAt: options.evaluatedAtMs };
  return options.includeConfig ? { ...ids, ...NO_REPLAY_CONFIG_FIELDS } : ids;
}
