// A rejected event as the ingest answer reports it: its uuid as sent, the spec's reason, and a
// message a person can act on (the rule that failed and the field). Messages are built only
// from field names and limits, never from the event's values, so they are a small fixed set
// (the ingestion-warnings table keys on them) and safe to show anywhere.
import { eventBytesMax, eventNestingMax } from "./limits.ts";

export type RejectReason = "invalid" | "too_large" | "reserved_name" | "clock_skew" | "duplicate";

export interface Rejection {
  uuid: string | null;
  reason: RejectReason;
  message: string;
}

export const tooDeepMessage = `event nests objects and arrays deeper than ${eventNestingMax} levels`;
export const tooLargeMessage = `event is larger than ${eventBytesMax} bytes (900 KiB) as JSON`;
export const duplicateMessage = "an event with this uuid was already accepted; it is stored once";

/** A drop-in item its mapper could not turn into a native event, and why. */
export interface Refusal {
  refused: string;
}

export const isRefusal = (value: unknown): value is Refusal => typeof value === "object" && value !== null && "refused" in value;
