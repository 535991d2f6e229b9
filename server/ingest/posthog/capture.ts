// POST (and GET `data=`) of product-analytics (PostHog) events: find the project key where the
// SDK put it, map the events to native ones and send them down the native path. Answers 200
// with `status: 1` (what the SDKs expect), plus the native counts and `quota_limited`, which
// posthog-js reads to pause a category.
import { ApiError } from "../../http/errors.ts";
import { requestMeta } from "../../http/client-meta.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { authenticate, ingestMapped, type IngestResponse, type MappedEvents } from "../capture.ts";
import { ingestMalformed, type DecodedBody } from "../decode-body.ts";
import { sentUuid } from "../json-values.ts";
import { batchEventsMax } from "../limits.ts";
import { parseRfc3339 } from "../rfc3339.ts";
import { eventKey, nativeFromPostHog, postHogEvents } from "./map-events.ts";
import { querySentAt } from "./query-sent-at.ts";
import { postHogIdNames, pseudonymiseContactIds } from "../contact-ids.ts";
import { isRefusal, type Refusal } from "../rejections.ts";

const otherProjectKey: Refusal = { refused: "event carries another project's key (token) than its request" };

export interface PostHogResponse extends IngestResponse {
  status: 1;
}

/** A decoded body with its request's query parameters. */
export interface PostHogRequest extends DecodedBody {
  query: URLSearchParams;
}

export async function capturePostHog(node: RegionNode, request: Request, trustProxy: boolean, decoded: PostHogRequest, receivedAt: number): Promise<PostHogResponse> {
  const { events, batchKey, sentAt } = postHogEvents(decoded.json);
  if (events.length === 0) throw ingestMalformed("body holds no events (expected an event, {batch: [...]} or an array of events)");
  if (events.length > batchEventsMax) throw new ApiError(413, "payload_too_large", `batch has ${events.length} events; at most ${batchEventsMax}`);
  const token = batchKey ?? events.map(eventKey).find((found) => found !== null) ?? null;
  const key = authenticate(node, token, request.headers.get("origin"));

  // The body's sent_at, else the one posthog-js puts in the query (query-sent-at.ts).
  const sentAtMs = parseRfc3339(sentAt) ?? querySentAt(decoded.query);
  const mapped: MappedEvents = { batch: [], sources: [], refused: [] };
  const pseudonymKey = () => node.store.projectSecrets.pseudonymKey(key.projectId);
  for (const [index, event] of events.entries()) {
    const ownKey = eventKey(event);
    const native = ownKey !== null && ownKey !== token ? otherProjectKey : nativeFromPostHog(event, { projectId: key.projectId, index, receivedAt, sentAt: sentAtMs });
    if (native === "dropped") continue;
    if (isRefusal(native)) {
      mapped.refused.push({ rejection: { uuid: sentUuid(event), reason: "invalid", message: native.refused }, source: event });
      continue;
    }
    for (const warning of pseudonymiseContactIds(native, postHogIdNames, pseudonymKey)) node.warnings.record(key, warning, event, receivedAt);
    mapped.batch.push(native);
    mapped.sources.push(event);
  }
  return { status: 1, ...(await ingestMapped(node, key, mapped, receivedAt, requestMeta(request, trustProxy))) };
}
