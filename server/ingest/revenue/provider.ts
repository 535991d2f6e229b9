// What a revenue provider's webhook module does, and what the `/wh/{provider}/{token}` route
// does around it: the route finds the integration by its path token, hands the raw request to
// the provider's module, and writes the events it returns durably (deduplicated by a uuid
// derived from the integration and each event's `uuidSeed`) before it answers 2xx.
import type { RevenueEventName } from "../../../engine/revenue-events.ts";

export const revenueProviders = ["stripe", "revenuecat", "app_store", "play_store"] as const;
export type RevenueProvider = (typeof revenueProviders)[number];

/** The integration as the region holds it (the secret included: the region verifies signatures). */
export interface WebhookIntegration {
  id: string;
  projectId: string;
  provider: RevenueProvider;
  status: "active" | "disabled";
  /** Stripe: the endpoint signing secret (`whsec_…`); RevenueCat: the Authorization header value; app stores: null. */
  secret: string | null;
  /** Non-secret settings (per provider; documented in docs/revenue.md). */
  config: Record<string, unknown>;
}

export interface WebhookRequest {
  headers: Headers;
  /** The body exactly as received (signatures are over these bytes). */
  body: Uint8Array;
  /** When the request arrived (epoch ms): signature tolerances are measured from it. */
  receivedAt: number;
}

/** One revenue event a notification stands for. */
export interface RevenueEventDraft {
  event: RevenueEventName;
  distinctId: string;
  /** Epoch ms of the provider's event. */
  timestamp: number;
  /** Unique within the integration and stable across deliveries of the same notification (e.g. `${providerEventId}:0`). */
  uuidSeed: string;
  properties: Record<string, string | number | boolean | null>;
}

export type WebhookOutcome =
  /** A notification understood: its events (possibly none). */
  | { kind: "events"; notificationId: string; notificationType: string; events: RevenueEventDraft[] }
  /** A notification of a type the service does not map: acknowledged (2xx) and ignored. */
  | { kind: "ignored"; notificationId: string | null; notificationType: string };

/** The request is not from the provider: answered 401 and logged as an ingestion warning. */
export class WebhookAuthError extends Error {
  constructor(readonly reason: "missing_signature" | "bad_signature" | "expired_signature" | "untrusted_certificate", message: string) {
    super(message);
  }
}

/** Authentic, but not a notification the provider sends (bad JSON, missing fields): answered 400. */
export class WebhookPayloadError extends Error {}

export interface RevenueProviderModule {
  provider: RevenueProvider;
  /** Verifies the request as the provider signs it, then maps it; throws WebhookAuthError or WebhookPayloadError. */
  handle(integration: WebhookIntegration, request: WebhookRequest): Promise<WebhookOutcome>;
}
