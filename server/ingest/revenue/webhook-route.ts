// POST /wh/{provider}/{token} on the ingest host (spec 2; docs/revenue.md): the integration is
// found by its path token in the region's copy (storage/integration-store.ts); a token that is
// unknown, rotated away, of a deleted or disabled integration, or of another provider answers
// 404. The provider's module verifies the request and maps it; its events go down the normal
// ingest path (capture.ts) in the project's production environment, each with a uuid derived
// from the integration and the event's seed and remembered by that seed in the region's webhook
// event log (storage/webhook-event-log.ts), so a notification redelivered even days later is stored once, and
// never sampled past a spend cap (money must add up exactly). The answer comes only once the
// events are durable. Answers use the spec's error shape {error: {code, message}}, not the
// SDKs' ingest shape: the callers are providers' servers.
import { ApiError, payloadTooLarge } from "../../http/errors.ts";
import { readBodyLimited } from "../../http/body.ts";
import type { RegistryKey } from "../../../storage/region-store.ts";
import type { RegionIntegration } from "../../../storage/integration-store.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { ingestEvents } from "../capture.ts";
import { derivedUuidV7 } from "../derived-uuid.ts";
import { postHogIdNames, pseudonymiseContactIds } from "../contact-ids.ts";
import type { JsonObject } from "../json-values.ts";
import {
  revenueProviders, WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type RevenueProvider, type RevenueProviderModule, type WebhookIntegration,
} from "./provider.ts";

/** The largest notification taken (providers send a few KB; App Store's signed payloads are the largest). */
export const webhookBodyBytesMax = 256 * 1024;
/** Characters of a provider module's message kept in a warning or a 400 answer (the module may quote what was sent). */
export const webhookMessageCharactersMax = 200;
/** The environment webhook events are written to. */
export const webhookEnvironment = "production";
/** `lib` of the stored events (the drop-in formats' are `posthog-compat` and `segment-compat`); its version is the provider. */
export const webhookLibName = "webhook";

export interface WebhookAnswer {
  received: true;
  /** Events of this notification stored by this delivery. */
  events: number;
  /** Events of this notification an earlier delivery had stored already. */
  duplicates: number;
  /** Events refused by the ingest rules (each counted as an ingestion warning). */
  rejected: number;
}

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

const errorAnswer = (error: ApiError) => answer(error.status, { error: { code: error.code, message: error.message } }, error.headers);

const noSuchWebhook = () => new ApiError(404, "not_found", "no webhook at this URL");

const isProvider = (name: string): name is RevenueProvider => (revenueProviders as readonly string[]).includes(name);

/** What ingest's per-project machinery (rates, warnings, the WAL record) needs of a key, for the integration's project. */
const projectKey = (integration: RegionIntegration): RegistryKey => ({
  key: `webhook:${integration.id}`,
  keyId: integration.id,
  projectId: integration.projectId,
  dataId: integration.dataId,
  environment: webhookEnvironment,
  allowedOrigins: [],
  allowedBundleIds: [],
  revokedAt: null,
  retentionDays: integration.retentionDays,
  timeZone: "UTC",
});

/**
 * The draft's properties without the unknown (null) ones: a module states what it could not
 * learn as null (Play's price of a product missing from `config.products`), but ingest refuses a
 * null `currency` as a broken money property, which would lose the whole event behind a 200.
 */
const knownProperties = (properties: RevenueEventDraft["properties"]): JsonObject =>
  Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== null));

function nativeEvent(integration: RegionIntegration, draft: RevenueEventDraft): JsonObject {
  return {
    uuid: derivedUuidV7(`${integration.id}:${draft.uuidSeed}`, draft.timestamp),
    event: draft.event,
    distinct_id: draft.distinctId,
    timestamp: new Date(draft.timestamp).toISOString(),
    // The provider's servers' address says nothing of where the person is.
    properties: { ...knownProperties(draft.properties), $geoip_disable: true },
    lib: { name: webhookLibName, version: integration.provider },
  };
}

async function store(node: RegionNode, integration: RegionIntegration, drafts: RevenueEventDraft[], receivedAt: number): Promise<WebhookAnswer> {
  const log = node.store.webhookEvents;
  const storedBefore = log.storedAlready(integration.id, drafts.map((draft) => draft.uuidSeed));
  const fresh = drafts.filter((draft) => !storedBefore.has(draft.uuidSeed));
  if (fresh.length === 0) return { received: true, events: 0, duplicates: storedBefore.size, rejected: 0 };
  const key = projectKey(integration);
  const pseudonymKey = () => node.store.projectSecrets.pseudonymKey(key.projectId);
  const batch = fresh.map((draft) => {
    const native = nativeEvent(integration, draft);
    for (const warning of pseudonymiseContactIds(native, postHogIdNames, pseudonymKey)) node.warnings.record(key, warning, draft, receivedAt);
    return native;
  });
  const body = new TextEncoder().encode(JSON.stringify({ batch }));
  // No client address or user agent: a provider's server is neither a person's location nor a crawler.
  const result = await ingestEvents(node, key, { batch, sources: fresh, body, sentAt: null, receivedAt, meta: { ip: null, userAgent: null }, keepAll: true });
  // Durable now (or stored by an earlier delivery the uuid index still knows): remembered for
  // later deliveries. A crash before this line leaves the uuid index to catch a prompt retry.
  const refused = new Set(result.rejected.filter((rejection) => rejection.reason !== "duplicate").map((rejection) => rejection.uuid));
  log.remember(integration.id, fresh.filter((_, index) => !refused.has(batch[index]!.uuid as string)).map((draft) => draft.uuidSeed), receivedAt);
  const duplicates = result.rejected.length - refused.size;
  return { received: true, events: result.accepted, duplicates: storedBefore.size + duplicates, rejected: refused.size };
}

export async function handleWebhook(
  node: RegionNode, modules: ReadonlyMap<RevenueProvider, RevenueProviderModule>, request: Request, providerName: string, token: string,
): Promise<Response> {
  const receivedAt = Date.now();
  try {
    if (!isProvider(providerName)) throw noSuchWebhook();
    const module = modules.get(providerName);
    const integration = module ? node.store.integrations.findByToken(token) : null;
    if (!module || !integration || integration.provider !== providerName || integration.status !== "active") throw noSuchWebhook();
    const body = await readBodyLimited(request, webhookBodyBytesMax);
    if (body.byteLength > webhookBodyBytesMax) throw payloadTooLarge(webhookBodyBytesMax);
    const verified: WebhookIntegration = { ...integration, provider: providerName };
    let outcome;
    try {
      outcome = await module.handle(verified, { headers: request.headers, body, receivedAt });
    } catch (error) {
      if (error instanceof WebhookAuthError) {
        // Bounded, and never the secret or the body: the reason, and how much was sent.
        const message = `${providerName} webhook not authenticated (${error.reason}): ${error.message}`.slice(0, webhookMessageCharactersMax);
        node.warnings.record(projectKey(integration), { reason: "webhook_unauthenticated", message }, { provider: providerName, reason: error.reason, body_bytes: body.byteLength }, receivedAt);
        throw new ApiError(401, "unauthorized", `the request is not signed by ${providerName} for this integration (${error.reason})`);
      }
      if (error instanceof WebhookPayloadError) throw new ApiError(400, "validation", error.message.slice(0, webhookMessageCharactersMax));
      throw error;
    }
    if (outcome.kind === "ignored") return answer(200, { received: true, events: 0, duplicates: 0, rejected: 0 } satisfies WebhookAnswer);
    return answer(200, await store(node, integration, outcome.events, receivedAt));
  } catch (error) {
    if (error instanceof ApiError) return errorAnswer(error);
    throw error;
  }
}
