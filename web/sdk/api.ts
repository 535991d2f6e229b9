// The public API: one client per page, made by init(). Every other call before init() is
// ignored with a warning (an analytics call must never break the page that makes it).
import { Client } from "./client.ts";
import type { FlagsCallback, FlagValue } from "./flags.ts";
import type { Consent, InitOptions } from "./options.ts";
import { defaultRecorderUrl } from "./recorder-location.ts";

export type { Consent, InitOptions, SessionRecordingOptions } from "./options.ts";
export type { FlagsCallback, FlagValue } from "./flags.ts";

let client: Client | null = null;

function initialised(): Client | null {
  if (!client) console.warn("svcAnalytics: call init(apiKey, { api_host }) first");
  return client;
}

export function init(apiKey: string, options: InitOptions): void {
  if (client) return;
  if (typeof apiKey !== "string" || apiKey === "" || typeof options?.api_host !== "string") {
    console.warn("svcAnalytics: init needs an api key and options.api_host");
    return;
  }
  let fallbackRecorderUrl: string;
  try {
    fallbackRecorderUrl = new URL("/sdk/v1/recorder.js", options.api_host).href;
  } catch {
    console.warn("svcAnalytics: options.api_host must be an absolute URL, such as https://analytics.example.com/ingest/eu");
    return;
  }
  client = new Client(apiKey, options, options.recorder_url ?? defaultRecorderUrl() ?? fallbackRecorderUrl);
}

export const capture = (event: string, properties?: Record<string, unknown>): void => initialised()?.capture(event, properties);
export const identify = (distinctId: string, set?: Record<string, unknown>, setOnce?: Record<string, unknown>): void =>
  initialised()?.identify(distinctId, set, setOnce);
export const alias = (alias: string): void => initialised()?.alias(alias);
export const group = (type: string, key: string, properties?: Record<string, unknown>): void => initialised()?.group(type, key, properties);
export const reset = (): void => initialised()?.reset();
export const register = (properties: Record<string, unknown>): void => initialised()?.register(properties);
export const unregister = (key: string): void => initialised()?.unregister(key);
export const setConsent = (mode: Consent): void => initialised()?.setConsent(mode);
export const isFeatureEnabled = (key: string): boolean | undefined => initialised()?.isFeatureEnabled(key);
export const getFeatureFlag = (key: string): FlagValue | undefined => initialised()?.getFeatureFlag(key);
export const getFeatureFlagPayload = (key: string): unknown => initialised()?.getFeatureFlagPayload(key);
export const onFeatureFlags = (callback: FlagsCallback): (() => void) => initialised()?.onFeatureFlags(callback) ?? (() => undefined);
export const reloadFeatureFlags = (): Promise<void> => initialised()?.reloadFeatureFlags() ?? Promise.resolve();
export const getDistinctId = (): string | null => initialised()?.getDistinctId() ?? null;
export const getSessionId = (): string | null => initialised()?.getSessionId() ?? null;
export const flush = (): Promise<void> => initialised()?.flush() ?? Promise.resolve();
export const startSessionRecording = (): void => initialised()?.startSessionRecording();
export const stopSessionRecording = (): void => initialised()?.stopSessionRecording();
