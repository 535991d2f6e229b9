// One HTTP attempt of a delivery: the stored body POSTed to the destination's URL (a webhook
// signed with fresh Standard Webhooks headers, a Slack incoming webhook as it is), no redirects
// followed, bounded in time, and no more of the receiver's answer read than the error keeps.
// The URL is the destination's secret (a Slack webhook URL lets anyone post to the channel), so
// it never appears in an error.
import type { DestinationKind } from "../findings-types.ts";
import { webhookHeaders } from "./webhook-signature.ts";

/** How long a receiver has to answer one attempt (its headers and the start of its body). */
export const deliveryTimeoutMs = 10_000;
/** The start of a receiver's answer kept in an attempt's error, in bytes. */
export const responseExcerptBytesMax = 512;
/** An attempt's error text, at most (characters). */
export const deliveryErrorLengthMax = 600;

export type DeliveryFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface DeliveryRequest {
  kind: DestinationKind;
  url: string;
  signingSecret: string | null;
  /** The webhook-id: the same on every attempt of a delivery. */
  id: string;
  body: string;
}

export interface DeliveryOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** The answer's Retry-After header, as sent. */
  retryAfter: string | null;
  durationMs: number;
  /** True when `stop` cut the attempt short (the process is stopping): not an outcome to log. */
  interrupted: boolean;
}

export interface PostOptions {
  fetch: DeliveryFetch;
  timeoutMs: number;
  stop?: AbortSignal;
}

export async function postDelivery(request: DeliveryRequest, options: PostOptions): Promise<DeliveryOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const problem = urlProblem(request.url);
  if (problem) return { ok: false, status: null, error: problem, retryAfter: null, durationMs: 0, interrupted: false };
  // The wall clock, not the runner's (a test's may run ahead): receivers refuse a timestamp more
  // than five minutes from their own clock, so each attempt is signed anew.
  const headers = request.kind === "webhook" ? webhookHeaders(request.signingSecret, request.id, Math.floor(Date.now() / 1_000), request.body) : { "content-type": "application/json" };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.stop ? AbortSignal.any([timeout, options.stop]) : timeout;
  try {
    const response = await options.fetch(request.url, { method: "POST", headers, body: request.body, redirect: "manual", signal });
    const ok = response.status >= 200 && response.status < 300;
    const text = await excerpt(response).catch(() => null);
    const error = ok ? null : bounded(`HTTP ${response.status}${text ? `: ${text}` : ""}`, request.url);
    return { ok, status: response.status, error, retryAfter: response.headers.get("retry-after"), durationMs: elapsed(), interrupted: false };
  } catch (error) {
    if (options.stop?.aborted) return { ok: false, status: null, error: "interrupted", retryAfter: null, durationMs: elapsed(), interrupted: true };
    const name = (error as Error).name;
    const message = name === "TimeoutError" || name === "AbortError" ? `no answer within ${options.timeoutMs} ms` : `could not connect: ${(error as Error).message}`;
    return { ok: false, status: null, error: bounded(message, request.url), retryAfter: null, durationMs: elapsed(), interrupted: false };
  }
}

function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "the destination's URL is not a URL";
  }
  return url.protocol === "https:" || url.protocol === "http:" ? null : "the destination's URL is not an http:// or https:// URL";
}

/** One line without control characters (it goes to logs too), without the URL, at most deliveryErrorLengthMax characters. */
function bounded(text: string, url: string): string {
  const line = text
    .split(url)
    .join("the destination's URL")
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ")
    .trim();
  return line.length > deliveryErrorLengthMax ? `${line.slice(0, deliveryErrorLengthMax - 1)}…` : line;
}

/** Reads no more of the answer than is kept (a receiver may answer with anything, endlessly). */
async function excerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < responseExcerptBytesMax) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  void reader.cancel().catch(() => {});
  if (length === 0) return null;
  // `fatal: false`: a multi-byte character cut at the limit becomes U+FFFD rather than an error.
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks).subarray(0, responseExcerptBytesMax));
}
