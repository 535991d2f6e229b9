// The answer shape of every flag endpoint for the same three results: a boolean flag on with a
// payload, a multivariate flag on a variant whose payload is the string "123", a flag off.
import { expect, test } from "bun:test";
import {
  nativeFlagsResponse,
  NO_REPLAY_CONFIG_FIELDS,
  posthogDecideV1Response,
  posthogDecideV2Response,
  posthogFlagsV2Response,
  posthogLegacyResponse,
} from "../../../engine/flags/responses.ts";
import type { FlagDefinition, FlagResult } from "../../../engine/flags/types.ts";

const matched = (index: number) => ({
  code: "condition_match",
  condition_index: index,
  description: `Matched condition set ${index + 1}`,
});
const outOfRollout = { code: "out_of_rollout_bound", condition_index: 0, description: "Out of rollout bound" };

const results: FlagResult[] = [
  { key: "beta", enabled: true, variant: null, payload: { theme: "dark" }, reason: matched(0) },
  { key: "pricing", enabled: true, variant: "test", payload: "123", reason: matched(1) },
  { key: "off", enabled: false, variant: null, payload: null, reason: outOfRollout },
];

const definition = (key: string, id: number, version: number): FlagDefinition => ({
  id,
  key,
  name: key,
  kind: "boolean",
  enabled: true,
  rules: [],
  variants: [],
  payload: null,
  salt: "",
  stickiness: "distinct_id",
  version,
});
const flags = [definition("beta", 11, 2), definition("pricing", 12, 5), definition("off", 13, 1)];

const requestId = "0190a9e2-7c3b-7f00-8000-000000000001";
const evaluatedAtMs = 1_720_000_000_000;
const bare = { requestId, evaluatedAtMs, includeConfig: false };

test("native: payloads as stored, the full reason", () => {
  expect(nativeFlagsResponse(results)).toEqual({
    flags: {
      beta: { enabled: true, variant: null, payload: { theme: "dark" }, reason: matched(0) },
      pricing: { enabled: true, variant: "test", payload: "123", reason: matched(1) },
      off: { enabled: false, variant: null, payload: null, reason: outOfRollout },
    },
  });
});

test("/flags?v=2 and /decide?v=4: details with id, version and the payload as JSON text", () => {
  expect(posthogFlagsV2Response(results, flags, bare)).toEqual({
    errorsWhileComputingFlags: false,
    flags: {
      beta: {
        key: "beta",
        enabled: true,
        variant: null,
        reason: matched(0),
        metadata: { id: 11, version: 2, description: null, payload: '{"theme":"dark"}' },
      },
      pricing: {
        key: "pricing",
        enabled: true,
        variant: "test",
        reason: matched(1),
        metadata: { id: 12, version: 5, description: null, payload: '"123"' },
      },
      off: {
        key: "off",
        enabled: false,
        variant: null,
        reason: outOfRollout,
        metadata: { id: 13, version: 1, description: null, payload: null },
      },
    },
    requestId,
    evaluatedAt: evaluatedAtMs,
  });
  expect(() => posthogFlagsV2Response(results, flags.slice(0, 2), bare)).toThrow(
    'no definition among the flags for result "off"',
  );
});

test("/flags (no v) and /decide?v=3: every value, enabled flags' payloads as JSON text, config when asked", () => {
  expect(posthogLegacyResponse(results, { requestId, evaluatedAtMs, includeConfig: true })).toEqual({
    errorsWhileComputingFlags: false,
    featureFlags: { beta: true, pricing: "test", off: false },
    featureFlagPayloads: { beta: '{"theme":"dark"}', pricing: '"123"' },
    requestId,
    evaluatedAt: evaluatedAtMs,
    supportedCompression: ["gzip", "gzip-js"],
    sessionRecording: false,
    surveys: false,
    heatmaps: false,
    capturePerformance: false,
    autocaptureExceptions: false,
    isAuthenticated: false,
    toolbarParams: {},
    config: { enable_collect_everything: true },
  });
});

test("/decide?v=2 maps enabled flags to their values; /decide?v=1 lists enabled keys", () => {
  expect(posthogDecideV2Response(results, bare)).toEqual({
    featureFlags: { beta: true, pricing: "test" },
    requestId,
    evaluatedAt: evaluatedAtMs,
  });
  expect(posthogDecideV1Response(results, { requestId, evaluatedAtMs, includeConfig: true })).toEqual({
    featureFlags: ["beta", "pricing"],
    requestId,
    evaluatedAt: evaluatedAtMs,
    ...NO_REPLAY_CONFIG_FIELDS,
  });
});
