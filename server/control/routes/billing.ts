// /app/orgs/{org_id}/billing: the overview, the spend cap, checkout and the customer portal
// (spec 1, "Console API: organisations, members, billing"), and the payment provider's webhook
// (ours: POST /billing/webhooks/{provider}, outside the contract; docs/billing.md).
import { jsonResponse, notFound, validation } from "../../http/errors.ts";
import { readBodyLimited } from "../../http/body.ts";
import type { RouteContext as Ctx } from "../../http/route-table.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { orgAccess } from "../access.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, consoleRead, errors, unlisted } from "../contract/operation.ts";
import { requireSession } from "./session-auth.ts";
import { BillingOverview, CapRequest, CapResponse, CheckoutRequest, CheckoutResult, PortalResponse } from "../billing/billing-schemas.ts";
import { billingOverviewDto } from "../billing/billing-overview.ts";
import { applySubscriptionChange, openPortal, requirePayments, setSpendCap, startCheckout } from "../billing/billing-writes.ts";
import { PaymentWebhookSignatureError } from "../billing/payment-provider.ts";

export const paymentWebhookPrefix = "/billing/webhooks/";
/** A provider's subscription event is a few KB; this bounds a hostile sender. */
export const paymentWebhookBodyBytesMax = 512 * 1024;

export const isPaymentWebhookPath = (path: string) => path.startsWith(paymentWebhookPrefix);

/** The raw body of a webhook (its signature covers the exact bytes), as the control app's parser hands it over. */
export async function readWebhookBody(request: Request): Promise<string> {
  return new TextDecoder().decode(await readBodyLimited(request, paymentWebhookBodyBytesMax));
}

export function billingRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  const access = (c: Ctx) => orgAccess(ctx, requireSession(ctx, c.request), c.params.org_id!);
  return routes
    .get("/app/orgs/{org_id}/billing", consoleRead("getBilling", "Plan, usage this period, current and projected invoice, spend cap and ingest stage", BillingOverview), async (c) => {
      const org = access(c);
      return jsonResponse(200, billingOverviewDto(ctx, await ctx.billing.evaluate(ctx, org.org.id)));
    })
    .patch("/app/orgs/{org_id}/billing/cap", {
      operationId: "setSpendCap", summary: "Set the spend cap; past it, capture keeps a weighted sample of events", security: "session",
      body: CapRequest, responses: { ...answer(200, "The new and the previous cap", CapResponse), ...errors(400, 401, 403, 404, 503) },
    }, async (c) => {
      const org = access(c);
      const { spend_cap_minor } = validateBody<typeof CapRequest.static>(CapRequest, c.body);
      return jsonResponse(200, await setSpendCap(ctx, org, spend_cap_minor));
    })
    .post("/app/orgs/{org_id}/billing/checkout", {
      operationId: "startCheckout", summary: "Hosted checkout, or an in-place plan change prorated by the payment provider", security: "session",
      body: CheckoutRequest, responses: { ...answer(200, "Checkout result", CheckoutResult), ...errors(400, 401, 403, 404, 409, 503) },
    }, async (c) => {
      const org = access(c);
      const { plan } = validateBody<typeof CheckoutRequest.static>(CheckoutRequest, c.body);
      return jsonResponse(200, await startCheckout(ctx, org, plan));
    })
    .post("/app/orgs/{org_id}/billing/portal", {
      operationId: "openBillingPortal", summary: "A hosted customer-portal session (payment methods, invoices, cancellation)", security: "session",
      responses: { ...answer(200, "Portal session", PortalResponse), ...errors(401, 403, 404, 409, 503) },
    }, async (c) => jsonResponse(200, await openPortal(ctx, access(c))))
    .post("/billing/webhooks/{provider}", unlisted("paymentWebhook", "The payment provider's subscription events (signed)", "none", "docs/billing.md"), async (c) => {
      const payments = requirePayments(ctx);
      if (c.params.provider !== payments.name) throw notFound("payment provider");
      const rawBody = typeof c.body === "string" ? c.body : "";
      let change;
      try {
        change = await payments.subscriptionChange(rawBody, c.request.headers);
      } catch (error) {
        if (error instanceof PaymentWebhookSignatureError) throw validation(`the webhook signature did not verify: ${error.message}`);
        throw error;
      }
      const applied = change === null ? false : await applySubscriptionChange(ctx, change);
      return jsonResponse(200, { received: true, applied });
    });
}
