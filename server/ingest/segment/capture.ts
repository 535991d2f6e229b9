// The HTTP Tracking API of a customer-data platform (Segment): /v1/{call} for one call, and
// /v1/batch (or /v1/import) for many. The write key comes from HTTP Basic auth (the key as
// user name, colon optional) or `writeKey` in the body. Bodies are JSON whatever their content
// type. Answers 200 `{success: true}` (with the native counts) for everything but JSON that
// does not parse and bodies or single calls over the size limits, which get 400.
import { ApiError } from "../../http/errors.ts";
import { requestMeta } from "../../http/client-meta.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { authenticate, ingestMapped, type IngestResponse, type MappedEvents } from "../capture.ts";
import { decodeIngestBody, ingestMalformed } from "../decode-body.ts";
import { isPlainObject } from "../json-values.ts";
import { nativeFromSegment, segmentCalls, withBatchContext, type SegmentCall } from "./map-calls.ts";
import { isRefusal, type Refusal } from "../rejections.ts";
import { pseudonymiseContactIds, segmentIdNames } from "../contact-ids.ts";

/** Segment's limit is 500 KB; RudderStack clients send batches of up to 4 MB, which are accepted too. */
export const segmentBatchBytesMax = 4 * 1024 * 1024;
export const segmentCallBytesMax = 32 * 1024;
export const segmentBatchCallsMax = 2500;

const unknownType: Refusal = { refused: `type must be one of ${segmentCalls.join(", ")}` };
const callTooLarge = `call is larger than ${segmentCallBytesMax} bytes`;

export interface SegmentResponse extends IngestResponse {
  success: true;
}


/** The write key of HTTP Basic auth: `base64("<key>:")`, the colon and password optional. */
function basicAuthKey(request: Request): string | null {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Basic\s+(\S+)$/i);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const user = decoded.includes(":") ? decoded.slice(0, decoded.indexOf(":")) : decoded;
  return user === "" ? null : user;
}

const oversize = (what: string, limit: number) => new ApiError(400, "validation", `${what} is larger than ${limit} bytes`);

/** One call (`kind` from the path) or, with `kind` null, a batch whose items name their own `type`. */
export async function captureSegment(node: RegionNode, request: Request, trustProxy: boolean, kind: SegmentCall | null): Promise<SegmentResponse> {
  const receivedAt = Date.now();
  const { json, bytes } = await decodeIngestBody(request).catch((error: unknown) => {
    // Past every limit, the answer for this API is 400.
    if (error instanceof ApiError && error.status === 413) throw oversize("request body", segmentBatchBytesMax);
    throw error;
  });
  if (bytes.byteLength > segmentBatchBytesMax) throw oversize("request body", segmentBatchBytesMax);
  if (!isPlainObject(json)) throw ingestMalformed("body must be a JSON object");
  if (kind !== null && bytes.byteLength > segmentCallBytesMax) throw oversize("a call", segmentCallBytesMax);
  const items = kind === null ? json.batch : [json];
  if (!Array.isArray(items)) throw ingestMalformed("batch must be an array of calls");
  if (items.length > segmentBatchCallsMax) throw ingestMalformed(`a batch holds at most ${segmentBatchCallsMax} calls; this one has ${items.length}`);
  const key = authenticate(node, basicAuthKey(request) ?? json.writeKey, request.headers.get("origin"));

  const mapped: MappedEvents = { batch: [], sources: [], refused: [] };
  const pseudonymKey = () => node.store.projectSecrets.pseudonymKey(key.projectId);
  for (const [index, raw] of items.entries()) {
    const item = kind === null ? withBatchContext(raw, json) : raw;
    const type = kind ?? (isPlainObject(item) ? item.type : null);
    const call = segmentCalls.find((known) => known === type);
    const native = call === undefined ? unknownType : nativeFromSegment(item, call, { projectId: key.projectId, index, receivedAt, batchSentAt: json.sentAt });
    if (isRefusal(native)) {
      mapped.refused.push({ rejection: { uuid: null, reason: "invalid", message: native.refused }, source: raw });
      continue;
    }
    if (new TextEncoder().encode(JSON.stringify(raw)).byteLength > segmentCallBytesMax) {
      mapped.refused.push({ rejection: { uuid: native.uuid as string, reason: "too_large", message: callTooLarge }, source: raw });
      continue;
    }
    for (const warning of pseudonymiseContactIds(native, segmentIdNames, pseudonymKey)) node.warnings.record(key, warning, raw, receivedAt);
    mapped.batch.push(native);
    mapped.sources.push(raw);
  }
  return { success: true, ...(await ingestMapped(node, key, mapped, receivedAt, requestMeta(request, trustProxy))) };
}
