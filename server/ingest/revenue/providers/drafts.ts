// What the three store and payment modules share when they turn a verified notification into
// revenue event drafts: reading untyped JSON safely, the distinct id's bounds, and numbering
// each notification's events so a redelivery gives the same uuid seeds.
import type { RevenueEventName } from "../../../../engine/revenue-events.ts";
import { distinctIdLengthMax } from "../../limits.ts";
import { isPlainObject, type JsonObject } from "../../json-values.ts";
import { WebhookPayloadError, type RevenueEventDraft, type RevenueProvider } from "../provider.ts";

export { isPlainObject, type JsonObject };

export type DraftProperties = RevenueEventDraft["properties"];

/** `value[key]` as an object, or null. */
export const objectAt = (value: unknown, key: string): JsonObject | null => {
  const inner = isPlainObject(value) ? value[key] : undefined;
  return isPlainObject(inner) ? inner : null;
};

/** `value[key]` as a non-empty string, or null. */
export const textAt = (value: unknown, key: string): string | null => {
  const inner = isPlainObject(value) ? value[key] : undefined;
  return typeof inner === "string" && inner !== "" ? inner : null;
};

/** `value[key]` as a finite number, or null. */
export const numberAt = (value: unknown, key: string): number | null => {
  const inner = isPlainObject(value) ? value[key] : undefined;
  return typeof inner === "number" && Number.isFinite(inner) ? inner : null;
};

/** A text usable as a distinct id as it is (1 to distinctIdLengthMax characters, not only blanks), or null. */
export const usableDistinctId = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" && value.length <= distinctIdLengthMax ? value : null;

/** `text` parsed as a JSON object, or WebhookPayloadError naming `what`. */
export function parseJsonObject(bytes: Uint8Array | string, what: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new WebhookPayloadError(`${what} is not JSON`);
  }
  if (!isPlainObject(parsed)) throw new WebhookPayloadError(`${what} is not a JSON object`);
  return parsed;
}

/**
 * Collects one notification's events in order: the i-th gets the uuid seed
 * `${providerEventId}:${i}`, and every one carries `provider` and `provider_event_id`.
 */
export class DraftList {
  readonly events: RevenueEventDraft[] = [];
  constructor(
    private readonly provider: RevenueProvider,
    private readonly providerEventId: string,
    private readonly timestamp: number,
  ) {}

  add(event: RevenueEventName, distinctId: string, properties: DraftProperties): void {
    this.events.push({
      event,
      distinctId,
      timestamp: this.timestamp,
      uuidSeed: `${this.providerEventId}:${this.events.length}`,
      properties: { ...properties, provider: this.provider, provider_event_id: this.providerEventId },
    });
  }
}
