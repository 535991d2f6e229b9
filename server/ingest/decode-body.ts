// Turns an ingest request body into parsed JSON: gzip or zstd (by Content-Encoding, the
// `compression` query parameter or magic bytes), base64, lz-string (old posthog-js), sendBeacon
// form bodies (`data=...`) and GET requests with a `data` parameter. The 20 MB limit applies
// after decompression and decoding, and every decompressor stops once its output passes it, so
// a small compressed body cannot expand into an unbounded one, and a base64 or form body is
// not refused for the length its encoding adds.
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { readBodyLimited } from "../http/body.ts";
import { ApiError } from "../http/errors.ts";
import { encodedRequestBytesMax, requestBytesMax } from "./limits.ts";
import { decodeLzBase64 } from "./lz-string.ts";

export const ingestTooLarge = () => new ApiError(413, "payload_too_large", `request body exceeds ${requestBytesMax} bytes after decompression`);
export const ingestMalformed = (message: string) => new ApiError(400, "validation", message);

type Compression = "gzip" | "zstd" | "base64" | "lz64" | null;

const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;
const isZstd = (bytes: Uint8Array) => bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
const base64Text = /^[A-Za-z0-9+/_-]+={0,2}$/;
/** Decoding without `stream` keeps no state between calls, so one decoder serves every request. */
const utf8 = new TextDecoder();

/** A compression as SDKs name it in the `compression` query or form field. */
function compressionNamed(name: string | null | undefined): Compression {
  switch (name?.trim().toLowerCase()) {
    case "gzip":
    case "gzip-js":
      return "gzip";
    case "zstd":
      return "zstd";
    case "base64":
    case "b64":
      return "base64";
    case "lz64":
    case "lz-string":
      return "lz64";
    default:
      return null;
  }
}

function headerCompression(request: Request): Compression {
  const header = request.headers.get("content-encoding")?.toLowerCase().trim();
  if (header === "gzip" || header === "x-gzip") return "gzip";
  if (header === "zstd") return "zstd";
  return null;
}

function inflate(bytes: Uint8Array, kind: "gzip" | "zstd"): Uint8Array {
  let output: Uint8Array;
  try {
    output = kind === "gzip"
      ? gunzipSync(bytes, { maxOutputLength: requestBytesMax })
      : zstdDecompressSync(bytes, { maxOutputLength: requestBytesMax });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw ingestTooLarge();
    throw ingestMalformed(`body is not valid ${kind} data`);
  }
  // Bun's zstd answers some damaged frames with empty output instead of an error.
  if (output.byteLength === 0) throw ingestMalformed(`body is not valid ${kind} data`);
  return output;
}

/** Standard or URL-safe base64; a space stands for a `+` that a form body did not percent-encode. */
function decodeBase64(text: string): Uint8Array {
  const cleaned = text.trim().replace(/[- ]/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned)) throw ingestMalformed("body is not valid base64");
  return Buffer.from(cleaned, "base64");
}

/** Bytes that are gzip or zstd (by magic bytes, or as declared) decompressed; others as they are. */
function inflated(bytes: Uint8Array, declared: Compression): Uint8Array {
  if (isGzip(bytes)) return inflate(bytes, "gzip");
  if (isZstd(bytes)) return inflate(bytes, "zstd");
  if (declared === "gzip" || declared === "zstd") return inflate(bytes, declared);
  return bytes;
}

/** Some clients (.NET's, Windows tools) start UTF-8 text with a byte-order mark; the text is after it. */
const withoutByteOrderMark = (bytes: Uint8Array) => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes);

function startsLikeJson(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

/** A payload sent as text (a form's or a query's `data`, a whole encoded body): JSON as is, lz-string when declared, else base64 of JSON, gzip or zstd. */
function payloadBytes(text: string, declared: Compression): Uint8Array {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return new TextEncoder().encode(trimmed);
  if (declared === "lz64") {
    // Past requestBytesMax UTF-16 units the text is past as many bytes of UTF-8 too.
    const decoded = decodeLzBase64(trimmed.replace(/ /g, "+"), requestBytesMax);
    if (!decoded.ok && decoded.reason === "too_long") throw ingestTooLarge();
    if (!decoded.ok) throw ingestMalformed("body is not valid lz-string data");
    return new TextEncoder().encode(decoded.text);
  }
  return inflated(decodeBase64(trimmed), null);
}

/** A form body: its `data` field, compressed as the query or else the form's own `compression` field says. */
function formData(form: URLSearchParams, queryCompression: Compression): Uint8Array {
  const data = form.get("data");
  if (data === null) throw ingestMalformed("body is neither JSON nor a form with a data field");
  return payloadBytes(data, queryCompression ?? compressionNamed(form.get("compression")));
}

export interface DecodedBody {
  json: unknown;
  /** The JSON text after decompression (the WAL keeps it as received). */
  bytes: Uint8Array;
}

async function requestBytes(request: Request): Promise<Uint8Array> {
  try {
    return await readBodyLimited(request, encodedRequestBytesMax);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) throw ingestTooLarge();
    throw error;
  }
}

/**
 * The JSON of an ingest request, however the SDK sent it. Compression hints are read in
 * PostHog's order (the `compression` query parameter, a form's `compression` field, then
 * Content-Encoding), and gzip and zstd are recognised by their magic bytes whatever the labels
 * say. A GET carries its payload in the `data` query parameter. `url` is the request's, when the
 * caller has already parsed it.
 */
export async function decodeIngestBody(request: Request, url = new URL(request.url)): Promise<DecodedBody> {
  const queryCompression = compressionNamed(url.searchParams.get("compression"));
  let bytes: Uint8Array;
  if (request.method === "GET") {
    const data = url.searchParams.get("data");
    if (data === null) throw ingestMalformed("a GET request needs its events in the data query parameter");
    bytes = payloadBytes(data, queryCompression);
  } else {
    const raw = await requestBytes(request);
    if (raw.byteLength === 0) throw ingestMalformed("request body is empty");
    bytes = withoutByteOrderMark(inflated(raw, queryCompression ?? headerCompression(request)));
    // Clients label bodies loosely (curl calls everything a form), so the content decides:
    // JSON starts with { or [, a whole body may be base64 or lz-string, a sendBeacon form
    // body carries a data= field.
    if (!startsLikeJson(bytes)) {
      const text = utf8.decode(bytes);
      const form = new URLSearchParams(text);
      // A form names its data field; base64 has no "data=" key, so it cannot be mistaken for one.
      const wholeBodyEncoded = !form.has("data") && (queryCompression === "base64" || queryCompression === "lz64" || base64Text.test(text.trim()));
      bytes = wholeBodyEncoded ? payloadBytes(text, queryCompression) : formData(form, queryCompression);
    }
  }
  if (bytes.byteLength > requestBytesMax) throw ingestTooLarge();
  try {
    return { json: JSON.parse(utf8.decode(bytes)), bytes };
  } catch {
    throw ingestMalformed("body is not valid JSON");
  }
}
