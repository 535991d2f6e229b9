// One HTTP attempt of a webhook delivery: the body POSTed with Standard Webhooks headers
// (webhook-id is the event's id, the same on every retry, so a receiver can drop repeats), no
// redirects followed, bounded in time, and the start of the receiver's answer kept.
import { signedHeaders } from "../../http/standard-webhooks.ts";
import { responseExcerpt } from "../../http/response-excerpt.ts";

/** The start of a receiver's answer kept with each attempt, in bytes. */
export const webhookResponseExcerptBytesMax = 1_024;
/** An error text kept with each attempt, at most. */
export const webhookErrorLengthMax = 500;

export type WebhookFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface WebhookPostOutcome {
  delivered: boolean;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

export async function postWebhook(
  fetchFn: WebhookFetch,
  target: { url: string; secret: string; eventId: string; body: string },
  timeoutMs: number,
  stop: AbortSignal,
): Promise<WebhookPostOutcome> {
  // The wall clock, not the service's (a test's may run ahead): receivers refuse a timestamp
  // more than five minutes from their own clock.
  const headers = signedHeaders(target.secret, target.eventId, Math.floor(Date.now() / 1_000), target.body);
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]);
  try {
    const response = await fetchFn(target.url, { method: "POST", headers, body: target.body, redirect: "manual", signal });
    // The status decides; an answer whose body stalls past the time-out keeps no excerpt.
    const excerpt = await responseExcerpt(response, webhookResponseExcerptBytesMax).catch(() => null);
    const delivered = response.status >= 200 && response.status < 300;
    return { delivered, status: response.status, error: delivered ? null : `HTTP ${response.status}`, responseExcerpt: excerpt };
  } catch (error) {
    const name = (error as Error).name;
    const message = name === "TimeoutError" || name === "AbortError" ? `no answer within ${timeoutMs} ms` : `could not connect: ${(error as Error).message}`;
    return { delivered: false, status: null, error: message.slice(0, webhookErrorLengthMax), responseExcerpt: null };
  }
}

