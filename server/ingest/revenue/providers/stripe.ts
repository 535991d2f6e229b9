// Stripe webhooks as revenue events. The signature is checked first (stripe-signature.ts), then
// the event is mapped:
// - money is counted where it moves, on the Charge: `charge.succeeded` (captured at once) and
//   `charge.captured` write $charge, `charge.refunded` writes $refund for the amount refunded by
//   this event (the growth of `amount_refunded`). `invoice.paid` is not mapped: the invoice's
//   payment is a Charge that `charge.succeeded` already counts, so it would count twice;
// - subscription state comes from `customer.subscription.*` (stripe-subscription.ts).
// The person is the object's `metadata.distinct_id` when the app set one, else the Stripe
// Customer (`cus_…`); a guest charge with neither is its PaymentIntent (`pi_…`).
import { revenueEvents } from "../../../../engine/revenue-events.ts";
import { WebhookPayloadError, type RevenueProviderModule, type WebhookOutcome } from "../provider.ts";
import { DraftList, numberAt, objectAt, parseJsonObject, textAt, usableDistinctId, type JsonObject } from "./drafts.ts";
import { verifyStripeSignature } from "./stripe-signature.ts";
import { mapSubscriptionEvent } from "./stripe-subscription.ts";

const subscriptionTypes = new Set(["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"]);
const chargeTypes = new Set(["charge.succeeded", "charge.captured", "charge.refunded"]);

/** The person a Charge belongs to, and the Customer reference it came from (null for a guest). */
function chargePerson(charge: JsonObject): { distinctId: string; customer: string | null } {
  const customer = textAt(charge, "customer") ?? textAt(objectAt(charge, "customer"), "id");
  const chosen = usableDistinctId(objectAt(charge, "metadata")?.distinct_id);
  const guest = textAt(charge, "payment_intent") ?? textAt(objectAt(charge, "payment_intent"), "id") ?? textAt(charge, "id");
  const distinctId = chosen ?? customer ?? guest;
  if (distinctId === null) throw new WebhookPayloadError("the charge has no id");
  return { distinctId, customer };
}

/**
 * The amount this `charge.refunded` refunds: the growth of `amount_refunded` over the event's
 * `previous_attributes`; without them, the newest refund of the charge's `refunds` list when the
 * endpoint expands it; else all of `amount_refunded` (right for a first refund, which is most).
 */
function refundedByThisEvent(charge: JsonObject, previous: JsonObject | null): number | null {
  const total = numberAt(charge, "amount_refunded");
  if (total === null) return null;
  const before = numberAt(previous, "amount_refunded");
  if (before !== null) return total - before;
  const refunds = objectAt(charge, "refunds")?.data;
  const newest = Array.isArray(refunds) ? numberAt(refunds[0], "amount") : null;
  return newest ?? total;
}

function mapChargeEvent(type: string, charge: JsonObject, previous: JsonObject | null, drafts: DraftList): void {
  const currency = textAt(charge, "currency")?.toUpperCase() ?? null;
  let amount: number | null;
  if (type === "charge.refunded") {
    amount = refundedByThisEvent(charge, previous);
  } else {
    // An authorisation alone (`captured: false`) takes no money yet: `charge.captured` will.
    if (charge.captured === false) return;
    amount = numberAt(charge, "amount_captured") || numberAt(charge, "amount");
  }
  if (amount === null || amount <= 0 || !Number.isInteger(amount) || currency === null) return;
  const { distinctId, customer } = chargePerson(charge);
  drafts.add(type === "charge.refunded" ? revenueEvents.refund : revenueEvents.charge, distinctId, { amount, currency, customer });
}

export const stripeModule: RevenueProviderModule = {
  provider: "stripe",
  async handle(integration, request): Promise<WebhookOutcome> {
    verifyStripeSignature(integration.secret, request.headers.get("stripe-signature"), request.body, request.receivedAt);
    const event = parseJsonObject(request.body, "the Stripe event");
    const id = textAt(event, "id");
    const type = textAt(event, "type");
    const created = numberAt(event, "created");
    const data = objectAt(event, "data");
    const object = objectAt(data, "object");
    if (id === null || type === null || created === null || object === null) {
      throw new WebhookPayloadError("the Stripe event lacks its id, type, created time or data.object");
    }
    if (!subscriptionTypes.has(type) && !chargeTypes.has(type)) return { kind: "ignored", notificationId: id, notificationType: type };
    const drafts = new DraftList("stripe", id, created * 1000);
    const previous = objectAt(data, "previous_attributes");
    if (chargeTypes.has(type)) mapChargeEvent(type, object, previous, drafts);
    else mapSubscriptionEvent(type, object, previous, drafts);
    return { kind: "events", notificationId: id, notificationType: type, events: drafts.events };
  },
};
