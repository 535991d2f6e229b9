// Calls to the transactional-mail API, served by the same process at /mail. It has its own
// keys (`Authorization: Bearer mk_live_…`), not the console's session: the key goes in that
// header to /mail and nowhere else, never in a URL, and no cookie goes with it. A 401 here is
// the mail API refusing the key; it says nothing about the console session.
import { keyedService, withQuery } from "./keyed-service.ts";
import type {
  EmailSearch, InboundEmail, MailDomain, MailEmail, MailEmailDetail, MailSuppression, MailUsage, MailWebhook, SuppressionReason, WebhookDelivery, WebhookDeliveryState,
} from "./mail-types.ts";
import type { Page } from "./persons-api.ts";

export const mailBase = "/mail";

const mailApi = keyedService(mailBase, (key) => ({ Authorization: `Bearer ${key}` }));

const mailJson = <T>(key: string, method: string, path: string, body?: unknown) => mailApi.json<T>(key, method, path, { body });

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
