// Turns an ingest request body into parsed JSON: gzip or zstd (by Content-Encoding, the
// `compression` query parameter or magic bytes), base64, and sendBeacon form bodies
// (`data=...`). The 20 MB limit applies after decompression, so a small compressed body
// cannot expand into an unbounded one.
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { readBodyLimited } from "../http/body.ts";
import { ApiError } from "../http/errors.ts";
import { requestBytesMax } from "./limits.ts";

export const ingestTooLarge = () => new ApiError(413, "payload_too_large", `request body exceeds ${requestBytesMax} bytes after decompression`);
export const ingestMalformed = (message: string) => new ApiError(400, "validation", message);

type Compression = "gzip" | "zstd" | "base64" | null;

const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;
const isZstd = (bytes: Uint8Array) => bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;

function declaredCompression(request: Request, url: URL): Compression {
  const query = url.searchParams.get("compression")?.toLowerCase();
  if (query === "gzip" || query === "gzip-js") return "gzip";
  if (query === "zstd") return "zstd";
  if (query === "base64") return "base64";
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

function decodeBase64(text: string): Uint8Array {
  const cleaned = text.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned)) throw ingestMalformed("body is not valid base64");
  return Buffer.from(cleaned, "base64");
}

/** Decompresses whatever the bytes are, trusting magic bytes over declarations that do not match. */
function expand(bytes: Uint8Array, declared: Compression): Uint8Array {
  if (declared === "base64") return expand(decodeBase64(new TextDecoder().decode(bytes)), null);
  if (isGzip(bytes)) return inflate(bytes, "gzip");
  if (isZstd(bytes)) return inflate(bytes, "zstd");
  if (declared === "gzip" || declared === "zstd") return inflate(bytes, declared);
  return bytes;
}

function startsLikeJson(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

function formData(bytes: Uint8Array): Uint8Array {
  const data = new URLSearchParams(new TextDecoder().decode(bytes)).get("data");
  if (data === null) throw ingestMalformed("body is neither JSON nor a form with a data field");
  const trimmed = data.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return new TextEncoder().encode(trimmed);
  return expand(decodeBase64(trimmed), null);
}

export interface DecodedBody {
  json: unknown;
  /** The JSON text after decompression (the WAL keeps it as received). */
  bytes: Uint8Array;
}

export async function decodeIngestBody(request: Request): Promise<DecodedBody> {
  const url = new URL(request.url);
  let raw: Uint8Array;
  try {
    raw = await readBodyLimited(request, requestBytesMax);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) throw ingestTooLarge();
    throw error;
  }
  if (raw.byteLength === 0) throw ingestMalformed("request body is empty");
  // Clients label bodies loosely (curl calls everything a form), so the content decides:
  // JSON starts with { or [, a sendBeacon form body carries a data= field.
  let expanded = expand(raw, declaredCompression(request, url));
  if (!startsLikeJson(expanded)) expanded = formData(expanded);
  if (expanded.byteLength > requestBytesMax) throw ingestTooLarge();
  try {
    return { json: JSON.parse(new TextDecoder().decode(expanded)), bytes: expanded };
  } catch {
    throw ingestMalformed("body is not valid JSON");
  }
}
