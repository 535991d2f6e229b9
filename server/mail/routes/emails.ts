// Sending (any live key: POST /v1/emails, POST /v1/emails/batch) and reading and changing the
// tenant's emails (full-access key): get one with its recipients, hops and SMTP attempts, search,
// reschedule or cancel a scheduled one.
import { Elysia, t } from "elysia";
import { PageQuery, page } from "../../http/paging.ts";
import { validateBody } from "../../http/validate.ts";
import { validation } from "../../http/errors.ts";
import type { MailContext } from "../context.ts";
import { emailDto } from "../email-dto.ts";
import type { EmailSearch, EmailStatus } from "../store/emails.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const emailStatuses: EmailStatus[] = ["scheduled", "queued", "deferred", "delivered", "partially_delivered", "bounced", "suppressed", "failed", "cancelled"];
const SearchQuery = t.Composite([
  PageQuery,
  t.Object(
    {
      recipient: t.Optional(t.String({ minLength: 1, maxLength: 254 })),
      status: t.Optional(t.String({ maxLength: 32 })),
      message_id: t.Optional(t.String({ minLength: 1, maxLength: 998 })),
      tag: t.Optional(t.String({ minLength: 3, maxLength: 513, pattern: "^[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$" })),
      created_after: t.Optional(t.String({ format: "date-time" })),
      created_before: t.Optional(t.String({ format: "date-time" })),
    },
    { additionalProperties: false },
  ),
]);
const RescheduleRequest = t.Object({ scheduled_at: t.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

const searchParameters = new Set(["limit", "cursor", "recipient", "status", "message_id", "tag", "created_after", "created_before"]);

const searchOf = (query: typeof SearchQuery.static, url: string): EmailSearch => {
  const unknown = [...new URL(url).searchParams.keys()].find((name) => !searchParameters.has(name));
  if (unknown !== undefined) throw validation(`query: ${JSON.stringify(unknown.slice(0, 64))} is not a search parameter (${[...searchParameters].join(", ")})`);
  if (query.status !== undefined && !(emailStatuses as string[]).includes(query.status)) {
    throw validation(`status: one of ${emailStatuses.join(", ")}`);
  }
  const time = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw validation(`${name}: not a date-time`);
    return ms;
  };
  const [tagName, tagValue] = query.tag?.split(":") ?? [];
  return {
    recipient: query.recipient?.trim(),
    status: query.status as EmailStatus | undefined,
    messageId: query.message_id === undefined ? undefined : query.message_id.startsWith("<") ? query.message_id : `<${query.message_id}>`,
    tag: tagName === undefined ? undefined : { name: tagName, value: tagValue! },
    createdAfter: time(query.created_after, "created_after"),
    createdBefore: time(query.created_before, "created_before"),
  };
};

export const sendRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "sending")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "sending") }))
    .post("/v1/emails", async ({ caller, body, request, set }) => {
      const { body: answer, replayed } = await ctx.send.send(caller, body, request.headers.get("idempotency-key"));
      if (replayed) set.headers["idempotent-replayed"] = "true";
      return answer;
    })
    .post("/v1/emails/batch", async ({ caller, body, request, set }) => {
      const { body: answer, replayed } = await ctx.send.sendBatch(caller, body, request.headers.get("idempotency-key"));
      if (replayed) set.headers["idempotent-replayed"] = "true";
      return answer;
    });

export const emailRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .get(
      "/v1/emails",
      async ({ caller, query, request }) => {
        const search = searchOf(query, request.url);
        const { items, nextCursor } = await page(query, (limit, after) => ctx.emails.search(caller.tenantId, search, limit, after));
        return { data: items.map(emailDto), next_cursor: nextCursor };
      },
      { query: SearchQuery },
    )
    .get("/v1/emails/:id", ({ caller, params }) => ctx.emails.detail(caller.tenantId, params.id), { params: Id })
    .patch(
      "/v1/emails/:id",
      async ({ caller, params, body }) => emailDto(await ctx.emails.reschedule(caller.tenantId, params.id, validateBody<typeof RescheduleRequest.static>(RescheduleRequest, body).scheduled_at)),
      { params: Id },
    )
    .post("/v1/emails/:id/cancel", async ({ caller, params }) => emailDto(await ctx.emails.cancel(caller.tenantId, params.id)), { params: Id });
