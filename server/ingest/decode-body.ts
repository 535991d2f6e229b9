// Turns an ingest request body into parsed JSON: gzip or zstd (recognised by their magic bytes),
// base64, lz-string (old posthog-js), sendBeacon form bodies (`data=...`) and GET requests with a
// `data` parameter, whatever the request's labels say (decodeIngestBody). The 20 MB limit applies
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

/** Bytes that are gzip or zstd by their magic bytes, decompressed; others as they are. */
function inflated(bytes: Uint8Array): Uint8Array {
  if (isGzip(bytes)) return inflate(bytes, "gzip");
  if (isZstd(bytes)) return inflate(bytes, "zstd");
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

/** `bytes` (decompressed by their magic bytes) when they are JSON text, after any byte-order mark; else null. */
function jsonBytes(bytes: Uint8Array): Uint8Array | null {
  const text = withoutByteOrderMark(inflated(bytes));
  return startsLikeJson(text) ? text : null;
}

/**
 * The JSON a base64 text (standard or URL-safe; a space stands for a `+` that a form body did
 * not percent-encode) stands for, its bytes maybe gzip or zstd; null when it is not that.
 */
function fromBase64(text: string): Uint8Array | null {
  const cleaned = text.replace(/[- ]/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned)) return null;
  return jsonBytes(Buffer.from(cleaned, "base64"));
}

/** The JSON an lz-string text (`compressToBase64`) stands for, or null when it is not that; 413 past requestBytesMax. */
function fromLzString(text: string): Uint8Array | null {
  // Past requestBytesMax UTF-16 units the text is past as many bytes of UTF-8 too.
  const decoded = decodeLzBase64(text.replace(/ /g, "+"), requestBytesMax);
  if (!decoded.ok && decoded.reason === "too_long") throw ingestTooLarge();
  return decoded.ok ? jsonBytes(new TextEncoder().encode(decoded.text)) : null;
}

/**
 * A payload sent as text (a form's or a query's `data`, or a whole body), in the fixed order of
 * docs/drop-in.md: JSON as it is; else the text encoding the request declares (base64 or
 * lz-string), then the other; each must give JSON (gzip or zstd inside base64 is recognised by
 * its magic bytes). Null when none does.
 */
function textPayload(text: string, declared: Compression): Uint8Array | null {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return new TextEncoder().encode(trimmed);
  if (declared === "lz64") return fromLzString(trimmed) ?? fromBase64(trimmed);
  return fromBase64(trimmed) ?? fromLzString(trimmed);
}

/** Why a payload that no encoding fits was refused: the encoding the request declared is what it is not. */
function undecodable(declared: Compression, what: "body" | "data"): ApiError {
  switch (declared) {
    case "gzip":
    case "zstd":
      return ingestMalformed(`${what} is not valid ${declared} data`);
    case "base64":
      return ingestMalformed(`${what} is not valid base64`);
    case "lz64":
      return ingestMalformed(`${what} is not valid lz-string data`);
    case null:
      return ingestMalformed(what === "body" ? "body is neither JSON nor a form with a data field" : "data is neither JSON, base64 nor lz-string");
  }
}

/** A text payload decoded (textPayload), or the error of what it is not. */
function decodedText(text: string, declared: Compression, what: "body" | "data"): Uint8Array {
  const payload = textPayload(text, declared);
  if (payload === null) throw undecodable(declared, what);
  return payload;
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
 * The JSON of an ingest request, however the SDK sent it, read in the fixed order of
 * docs/drop-in.md ("Body encodings"): what the bytes are wins over what the request says they
 * are. gzip and zstd are recognised by their magic bytes whatever the labels; JSON by its first
 * character; a form by its `data` field; base64 and lz-string by decoding to JSON. The
 * `compression` query parameter (else a form's own `compression` field, else Content-Encoding)
 * only picks which text encoding is tried first and names the error when nothing fits: a
 * sendBeacon form sent with `?compression=gzip-js` is read as the form it is. A GET carries its
 * payload in the `data` query parameter. `url` is the request's, when the caller has already
 * parsed it.
 */
export async function decodeIngestBody(request: Request, url = new URL(request.url)): Promise<DecodedBody> {
  const queryCompression = compressionNamed(url.searchParams.get("compression"));
  let bytes: Uint8Array;
  if (request.method === "GET") {
    const data = url.searchParams.get("data");
    if (data === null) throw ingestMalformed("a GET request needs its events in the data query parameter");
    bytes = decodedText(data, queryCompression, "data");
  } else {
    const raw = await requestBytes(request);
    if (raw.byteLength === 0) throw ingestMalformed("request body is empty");
    const plain = withoutByteOrderMark(inflated(raw));
    if (startsLikeJson(plain)) bytes = plain;
    else {
      // Clients label bodies loosely (curl calls everything a form), so the content decides.
      const text = utf8.decode(plain);
      const form = new URLSearchParams(text);
      // A form names its data field; base64 has no "data=" key, so it cannot be mistaken for one.
      bytes = form.has("data")
        ? decodedText(form.get("data")!, queryCompression ?? compressionNamed(form.get("compression")), "data")
        : decodedText(text, queryCompression ?? headerCompression(request), "body");
    }
  }
  if (bytes.byteLength > requestBytesMax) throw ingestTooLarge();
  try {
    return { json: JSON.parse(utf8.decode(bytes)), bytes };
  } catch {
    throw ingestMalformed("body is not valid JSON");
  }
}
