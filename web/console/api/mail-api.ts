// Calls to the transactional-mail API, served by the same process at /mail. It has its own
// keys (`Authorization: Bearer mk_live_…`), not the console's session: the key goes in that
// header to /mail and nowhere else, never in a URL, and no cookie goes with it. A 401 here is
// the mail API refusing the key; it says nothing about the console session.
import { errorFromResponse } from "./errors.ts";
import type {
  EmailSearch, InboundEmail, MailDomain, MailEmail, MailEmailDetail, MailSuppression, MailUsage, MailWebhook, SuppressionReason, WebhookDelivery, WebhookDeliveryState,
} from "./mail-types.ts";
import type { Page } from "./persons-api.ts";

export const mailBase = "/mail";

async function mailFetch(key: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${mailBase}${path}`, { method, credentials: "omit", headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/**
 * The API's refusal as an error the pages describe. Its 5xx answers say what failed in words
 * meant for people, which the console's generic "could not answer" would hide: those become
 * plain errors carrying the API's message.
 */
async function mailError(response: Response): Promise<Error> {
  const error = await errorFromResponse(response);
  return error.status >= 500 && error.code !== "http_error" ? new Error(error.message) : error;
}

async function mailJson<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await mailFetch(key, method, path, body);
  if (!response.ok) throw await mailError(response);
  return (await response.json()) as T;
}

const withQuery = (path: string, query: Record<string, string | null | undefined>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};

const id = (value: string) => encodeURIComponent(value);

/** Listing pages as the console's paged lists read them. */
const page = <T>(answer: { data: T[]; next_cursor: string | null }): Page<T> => ({ results: answer.data, next_cursor: answer.next_cursor });

/** Checks the key by reading its tenant's usage: a full-access key may; the API's 401 or 403 says why another may not. */
export const checkKey = (key: string) => mailJson<MailUsage>(key, "GET", "/v1/usage");

export const searchEmails = async (key: string, search: EmailSearch, cursor: string | null) =>
  page(await mailJson<{ data: MailEmail[]; next_cursor: string | null }>(key, "GET", withQuery("/v1/emails", { ...search, cursor })));
export const readEmail = (key: string, emailId: string) => mailJson<MailEmailDetail>(key, "GET", `/v1/emails/${id(emailId)}`);
export const cancelEmail = (key: string, emailId: string) => mailJson<MailEmail>(key, "POST", `/v1/emails/${id(emailId)}/cancel`);
export const rescheduleEmail = (key: string, emailId: string, scheduledAt: string) => mailJson<MailEmail>(key, "PATCH", `/v1/emails/${id(emailId)}`, { scheduled_at: scheduledAt });

export const listDomains = async (key: string) => (await mailJson<{ data: MailDomain[] }>(key, "GET", "/v1/domains")).data;
export const addDomain = (key: string, name: string, receiving: boolean) => mailJson<MailDomain>(key, "POST", "/v1/domains", { name, receiving });
export const verifyDomain = (key: string, domainId: string) => mailJson<MailDomain>(key, "POST", `/v1/domains/${id(domainId)}/verify`);

export const listSuppressions = async (key: string, reason: SuppressionReason | null, cursor: string | null) =>
  page(await mailJson<{ data: MailSuppression[]; next_cursor: string | null }>(key, "GET", withQuery("/v1/suppressions", { reason, cursor })));
export const addSuppression = (key: string, address: string, detail: string | null) =>
  mailJson<MailSuppression>(key, "POST", "/v1/suppressions", detail ? { address, detail } : { address });
export const removeSuppression = (key: string, address: string) => mailJson<{ address: string; deleted: true }>(key, "DELETE", `/v1/suppressions/${id(address)}`);

export const listWebhooks = async (key: string, cursor: string | null) =>
  page(await mailJson<{ data: MailWebhook[]; next_cursor: string | null }>(key, "GET", withQuery("/v1/webhooks", { cursor })));
/** The endpoint with its signing secret: the only answer that carries it (besides a rotation). */
export const createWebhook = (key: string, url: string, events: string[]) => mailJson<MailWebhook & { secret: string }>(key, "POST", "/v1/webhooks", { url, events });
export const deleteWebhook = (key: string, webhookId: string) => mailJson<{ id: string; deleted: true }>(key, "DELETE", `/v1/webhooks/${id(webhookId)}`);
export const listWebhookDeliveries = async (key: string, webhookId: string, state: WebhookDeliveryState | null, cursor: string | null) =>
  page(await mailJson<{ data: WebhookDelivery[]; next_cursor: string | null }>(key, "GET", withQuery(`/v1/webhooks/${id(webhookId)}/deliveries`, { state, cursor })));
export const replayWebhookDelivery = (key: string, webhookId: string, deliveryId: string) =>
  mailJson<WebhookDelivery>(key, "POST", `/v1/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/replay`);

export const readMailUsage = (key: string) => mailJson<MailUsage>(key, "GET", "/v1/usage");

export const listInbound = async (key: string, cursor: string | null) =>
  page(await mailJson<{ data: InboundEmail[]; next_cursor: string | null }>(key, "GET", withQuery("/v1/inbound", { cursor })));
