// Each reason ingest gives as a person reads it: its name and what it means for the events.
import type { WarningReason } from "../../api/ingestion-warnings.ts";

export const reasonInfo: Record<WarningReason, { label: string; meaning: string; refused: boolean }> = {
  invalid: { label: "Invalid", meaning: "Refused: the event broke a rule of the format", refused: true },
  too_large: { label: "Too large", meaning: "Refused: the event or its request was over the size limit", refused: true },
  reserved_name: { label: "Reserved name", meaning: "Refused: a $ name the service does not know", refused: true },
  clock_skew: { label: "Clock skew", meaning: "Refused: the sender's clock was too far off", refused: true },
  duplicate: { label: "Duplicate", meaning: "Refused: an event with this uuid was already stored", refused: true },
  pseudonymised_id: { label: "Pseudonymised id", meaning: "Accepted with its distinct id replaced: it was an email address or phone number", refused: false },
  plan_violation: { label: "Plan violation", meaning: "Accepted, but it breaks the tracking plan", refused: false },
  webhook_unauthenticated: { label: "Webhook unauthenticated", meaning: "Refused: a revenue webhook whose signature or authorization did not verify", refused: true },
};
