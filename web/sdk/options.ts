// The options of init(), their defaults, and what the core hands the recording module.
import type { FlagValue } from "./flags.ts";

export type Consent = "granted" | "pending" | "cookieless";

export interface SessionRecordingOptions {
  enabled: boolean;
  /** Every input's value is masked unless this is explicitly false. */
  mask_all_inputs?: boolean;
  /** Text of elements matching this CSS selector is recorded as asterisks. */
  mask_text_selector?: string;
  /** Elements matching this CSS selector are not recorded at all (a same-size placeholder). */
  block_selector?: string;
}

export interface InitOptions {
  /** The region's ingest URL, such as https://analytics.example.com/ingest/eu. */
  api_host: string;
  autocapture?: boolean;
  capture_pageview?: boolean;
  consent?: Consent;
  bootstrap?: { distinct_id?: string; feature_flags?: Record<string, FlagValue> };
  flush_interval_ms?: number;
  batch_size?: number;
  session_recording?: SessionRecordingOptions;
  persistence?: "localStorage" | "memory";
  /** Where the recording module is loaded from; by default next to this script. */
  recorder_url?: string;
}

export const defaultFlushIntervalMs = 2000;
export const defaultBatchSize = 50;
/** Ingest takes at most 1,000 events per request (spec 2, Limits). */
export const batchEventsMax = 1000;
/** A request of events stays under this many characters before compression. */
export const requestCharactersMax = 1_000_000;

export interface ResolvedRecordingOptions {
  maskAllInputs: boolean;
  maskTextSelector: string | undefined;
  blockSelector: string | undefined;
}

export function recordingOptions(options: SessionRecordingOptions | undefined): ResolvedRecordingOptions {
  return {
    maskAllInputs: options?.mask_all_inputs !== false,
    maskTextSelector: options?.mask_text_selector || undefined,
    blockSelector: options?.block_selector || undefined,
  };
}

/** What the recording module (recorder.ts) gets from the core. */
export interface RecorderHost {
  /** The ingest URL, without a trailing slash. */
  apiHost: string;
  apiKey: string;
  options: ResolvedRecordingOptions;
  /** The current session id; `activity` extends it (a new one after 30 minutes without activity). */
  sessionId(activity: boolean): string;
  windowId(): string;
  distinctId(): string;
  /** Null past the largest sequence number ingest takes. */
  nextSeq(sessionId: string): number | null;
  isSampledOut(sessionId: string): boolean;
  markSampledOut(sessionId: string): void;
}

export interface Recorder {
  stop(): void;
}

export type StartRecorder = (host: RecorderHost) => Recorder;

declare global {
  interface Window {
    /** Set by recorder.js when it loads. */
    svcAnalyticsRecorder?: StartRecorder;
  }
}
