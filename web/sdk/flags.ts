// Feature flags evaluated by the region (`POST {api_host}/flags`, answered
// `{flags: {key: {enabled, variant, payload, reason}}}`). Bootstrapped values answer at once;
// the remote answer replaces them when it arrives, and an older answer never replaces a newer one.
import { post } from "./transport.ts";

export type FlagValue = boolean | string;
export type FlagsCallback = (flags: Record<string, FlagValue>, context: { errorsLoading: boolean }) => void;

interface FlagAnswer {
  flags?: Record<string, { enabled?: unknown; variant?: unknown; payload?: unknown }>;
}

export interface FlagSubject {
  distinct_id: string;
  groups: Record<string, string>;
  person_properties: Record<string, unknown>;
}

export class FeatureFlags {
  private values: Record<string, FlagValue>;
  private payloads: Record<string, unknown> = {};
  private readonly callbacks = new Set<FlagsCallback>();
  /** Whether values are there to report (bootstrapped or answered). */
  private known: boolean;
  private requestNumber = 0;

  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    bootstrap: Record<string, FlagValue> | undefined,
  ) {
    this.values = { ...bootstrap };
    this.known = bootstrap !== undefined;
  }

  value(key: string): FlagValue | undefined {
    return this.values[key];
  }

  enabled(key: string): boolean | undefined {
    const value = this.values[key];
    return value === undefined ? undefined : value !== false;
  }

  payload(key: string): unknown {
    return this.payloads[key];
  }

  /** Calls `callback` with every answer from now on, and at once when flags are known already. */
  subscribe(callback: FlagsCallback): () => void {
    this.callbacks.add(callback);
    if (this.known) callback({ ...this.values }, { errorsLoading: false });
    return () => this.callbacks.delete(callback);
  }

  async reload(subject: FlagSubject): Promise<void> {
    const number = ++this.requestNumber;
    const outcome = await post(this.url, JSON.stringify({ api_key: this.apiKey, ...subject }));
    if (number !== this.requestNumber) return;
    const answer = outcome.kind === "sent" ? (outcome.answer as FlagAnswer | null) : null;
    if (answer?.flags && typeof answer.flags === "object") {
      const values: Record<string, FlagValue> = {};
      const payloads: Record<string, unknown> = {};
      for (const [key, flag] of Object.entries(answer.flags)) {
        values[key] = typeof flag.variant === "string" ? flag.variant : flag.enabled === true;
        if (flag.payload !== undefined && flag.payload !== null) payloads[key] = flag.payload;
      }
      this.values = values;
      this.payloads = payloads;
      this.known = true;
    }
    const errorsLoading = !answer?.flags;
    for (const callback of this.callbacks) callback({ ...this.values }, { errorsLoading });
  }
}
