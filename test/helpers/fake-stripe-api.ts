// A local server that answers like Stripe's API for exactly the calls StripePaymentProvider
// makes (the real API cannot be reached from here), driven by the official `stripe` client
// over real HTTP: form-encoded bodies parsed as Stripe parses them, unknown parameters refused,
// `Authorization: Bearer` checked, idempotency keys replayed, Stripe's error bodies, and state
// kept in memory. Test controls complete a checkout, change or cancel a subscription, fail the
// next calls, and hand out the webhook events Stripe would send, signed with the endpoint secret.
import Stripe from "stripe";
import { checkParams, invalid, missing, parseForm, RequestError, required, validUrl, type FormObject, type Shape, type StripeErrorBody } from "./fake-stripe-form.ts";
import {
  customerObject,
  invoiceObject,
  priceObject,
  stripeId,
  subscriptionObject,
  type FakePrice,
  type LineInput,
  type Metadata,
  type StripeObject,
} from "./fake-stripe-objects.ts";

export type { FakePrice, StripeObject, StripeErrorBody };

export interface RecordedRequest {
  method: string;
  path: string;
  params: FormObject;
  idempotencyKey: string | null;
  stripeVersion: string | null;
}


export interface WebhookDelivery {
  event: StripeObject;
  body: string;
  headers: Headers;
}

interface SessionState {
  session: StripeObject;
  price: FakePrice;
  subscriptionMetadata: Metadata;
}

const prorationBehaviors = new Set(["always_invoice", "create_prorations", "none"]);
const itemsShape: Shape = [{ id: "string", price: "string" }];

export class FakeStripeApi {
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<string, StripeObject>();
  readonly sessions = new Map<string, SessionState>();
  readonly subscriptions = new Map<string, StripeObject>();
  readonly portalSessions: StripeObject[] = [];
  /** Invoices raised by plan changes with `always_invoice`. */
  readonly invoices: StripeObject[] = [];
  private readonly prices = new Map<string, FakePrice>();
  private readonly idempotent = new Map<string, { path: string; body: string; status: number; response: unknown }>();
  private readonly events: StripeObject[] = [];
  private failures: { status: number; body: StripeErrorBody; remaining: number; path: string | null } | null = null;
  private server: ReturnType<typeof Bun.serve> | null = null;

  constructor(
    readonly secretKey: string,
    readonly webhookSecret: string,
    prices: FakePrice[],
    /** Unix seconds: objects' times, proration dates and webhook signatures (tests move it). */
    public now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    for (const price of prices) this.prices.set(price.id, price);
  }

  get url(): URL {
    if (!this.server) throw new Error("fake Stripe API not started");
    return new URL(`http://127.0.0.1:${this.server.port}`);
  }

  start(): this {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => this.handle(request) });
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = null;
  }

  /** The next `times` API calls (to `path` only, when given) fail with this status and Stripe error body. */
  failNext(status: number, body: StripeErrorBody, options: { times?: number; path?: string } = {}): void {
    this.failures = { status, body, remaining: options.times ?? 1, path: options.path ?? null };
  }

  /** The customer pays: the session's subscription starts now (events `customer.subscription.created`, `checkout.session.completed`). */
  completeCheckout(sessionId: string): StripeObject {
    const state = this.sessions.get(sessionId);
    if (!state || state.session.status !== "open") throw new Error(`no open checkout session ${sessionId}`);
    const subscription = subscriptionObject(state.session.customer as string, state.price, state.subscriptionMetadata, this.now());
    this.subscriptions.set(subscription.id, subscription);
    Object.assign(state.session, { status: "complete", payment_status: "paid", subscription: subscription.id });
    this.emit("customer.subscription.created", subscription);
    this.emit("checkout.session.completed", state.session);
    return subscription;
  }

  /** A change made in Stripe's dashboard or by its dunning (event `customer.subscription.updated`). */
  updateSubscription(id: string, changes: { status?: string; metadata?: Metadata }): StripeObject {
    const subscription = this.subscription(id);
    const previous = Object.fromEntries(Object.keys(changes).map((key) => [key, subscription[key]]));
    Object.assign(subscription, changes);
    this.emit("customer.subscription.updated", subscription, previous);
    return subscription;
  }

  /** The subscription ends now (event `customer.subscription.deleted`). */
  cancelSubscription(id: string): StripeObject {
    const subscription = this.subscription(id);
    Object.assign(subscription, { status: "canceled", canceled_at: this.now(), ended_at: this.now() });
    this.emit("customer.subscription.deleted", subscription);
    return subscription;
  }

  /** The events Stripe would have sent since the last call, oldest first. */
  takeEvents(): StripeObject[] {
    return this.events.splice(0);
  }

  /** A webhook request as Stripe sends it: the event's JSON and its Stripe-Signature header. */
  async deliver(event: StripeObject, options: { timestamp?: number; secret?: string; body?: string } = {}): Promise<WebhookDelivery> {
    const body = options.body ?? JSON.stringify(event, null, 2);
    const header = await Stripe.webhooks.generateTestHeaderStringAsync({
      payload: body,
      secret: options.secret ?? this.webhookSecret,
      timestamp: options.timestamp ?? this.now(),
    });
    return { event, body, headers: new Headers({ "content-type": "application/json; charset=utf-8", "stripe-signature": header }) };
  }

  /** An event of any type, shaped as Stripe sends it (for events nothing here produces). */
  event(type: string, object: StripeObject, previousAttributes?: Record<string, unknown>): StripeObject {
    return {
      id: stripeId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: this.now(),
      data: { object: structuredClone(object), ...(previousAttributes ? { previous_attributes: structuredClone(previousAttributes) } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  private emit(type: string, object: StripeObject, previousAttributes?: Record<string, unknown>): void {
    this.events.push(this.event(type, object, previousAttributes));
  }

  private subscription(id: string, param?: string): StripeObject {
    const subscription = this.subscriptions.get(id);
    if (!subscription) throw missing("subscription", id, param);
    return subscription;
  }

  private price(id: string, param: string): FakePrice {
    const price = this.prices.get(id);
    if (!price) throw missing("price", id, param);
    return price;
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const body = request.method === "GET" ? url.search.slice(1) : await request.text();
    const params = parseForm(body);
    const idempotencyKey = request.headers.get("idempotency-key");
    this.requests.push({ method: request.method, path: url.pathname, params, idempotencyKey, stripeVersion: request.headers.get("stripe-version") });
    const authorization = request.headers.get("authorization");
    if (!authorization?.startsWith("Bearer ")) {
      return this.error(401, { type: "invalid_request_error", message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth." });
    }
    const key = authorization.slice("Bearer ".length);
    if (key !== this.secretKey) {
      return this.error(401, { type: "invalid_request_error", message: `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}` });
    }
    if (this.failures && (this.failures.path === null || this.failures.path === url.pathname)) {
      const { status, body: failure } = this.failures;
      this.failures.remaining -= 1;
      if (this.failures.remaining <= 0) this.failures = null;
      return this.error(status, failure);
    }
    const stored = idempotencyKey && request.method === "POST" ? this.idempotent.get(idempotencyKey) : undefined;
    if (stored) {
      if (stored.path !== url.pathname || stored.body !== body) {
        return this.error(400, { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` });
      }
      return this.json(stored.status, stored.response, { "Idempotent-Replayed": "true" });
    }
    let status = 200;
    let response: unknown;
    try {
      response = this.route(request.method, url.pathname, params);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      status = error.status;
      response = { error: { ...error.body, ...(error.body.code ? { doc_url: `https://stripe.com/docs/error-codes/${error.body.code.replaceAll("_", "-")}` } : {}) } };
    }
    // Stripe keeps the result of a request that ran, errors included, for the same key.
    if (idempotencyKey && request.method === "POST") this.idempotent.set(idempotencyKey, { path: url.pathname, body, status, response });
    return this.json(status, response);
  }

  private route(method: string, path: string, params: FormObject): unknown {
    if (method === "POST" && path === "/v1/customers") return this.createCustomer(params);
    if (method === "POST" && path === "/v1/checkout/sessions") return this.createCheckoutSession(params);
    if (method === "POST" && path === "/v1/billing_portal/sessions") return this.createPortalSession(params);
    if (method === "POST" && path === "/v1/invoices/create_preview") return this.previewInvoice(params);
    const subscriptionPath = path.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (subscriptionPath && method === "GET") return this.retrieveSubscription(decodeURIComponent(subscriptionPath[1]!), params);
    if (subscriptionPath && method === "POST") return this.changeSubscription(decodeURIComponent(subscriptionPath[1]!), params);
    throw new RequestError(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` });
  }

  private check(params: FormObject, shape: Shape): void {
    const error = checkParams(params, shape);
    if (error) throw invalid(error.message, error.param, error.code);
  }

  private createCustomer(params: FormObject): StripeObject {
    this.check(params, { email: "string", name: "string", metadata: "metadata" });
    const customer = customerObject(stripeId("cus"), this.now(), (params.email as string) ?? null, (params.name as string) ?? null, (params.metadata as Metadata) ?? {});
    this.customers.set(customer.id, customer);
    this.emit("customer.created", customer);
    return customer;
  }

  private createCheckoutSession(params: FormObject): StripeObject {
    this.check(params, {
      mode: "string",
      customer: "string",
      line_items: [{ price: "string", quantity: "integer" }],
      client_reference_id: "string",
      metadata: "metadata",
      subscription_data: { metadata: "metadata" },
      success_url: "string",
      cancel_url: "string",
    });
    if (params.mode === undefined) throw required("mode");
    if (params.mode !== "subscription") throw invalid("This fake answers only mode=subscription.", "mode");
    const customer = params.customer as string | undefined;
    if (customer !== undefined && !this.customers.has(customer)) throw missing("customer", customer, "customer");
    const lines = params.line_items as FormObject[] | undefined;
    if (!lines || lines.length !== 1) throw invalid("This fake answers exactly one line item.", "line_items");
    if (lines[0]!.price === undefined) throw required("line_items[0][price]");
    const price = this.price(lines[0]!.price as string, "line_items[0][price]");
    if (lines[0]!.quantity !== undefined && lines[0]!.quantity !== "1") throw invalid("This fake answers quantity 1 only.", "line_items[0][quantity]");
    const created = this.now();
    const id = stripeId("cs_test");
    const session: StripeObject = {
      id,
      object: "checkout.session",
      amount_subtotal: price.unit_amount,
      amount_total: price.unit_amount,
      cancel_url: validUrl(params.cancel_url as string | undefined, "cancel_url"),
      client_reference_id: (params.client_reference_id as string) ?? null,
      created,
      currency: price.currency,
      customer: customer ?? null,
      expires_at: created + 24 * 3600,
      livemode: false,
      metadata: (params.metadata as Metadata) ?? {},
      mode: "subscription",
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: validUrl(params.success_url as string | undefined, "success_url"),
      url: `https://checkout.stripe.com/c/pay/${id}`,
    };
    const subscriptionData = params.subscription_data as FormObject | undefined;
    this.sessions.set(id, { session, price, subscriptionMetadata: (subscriptionData?.metadata as Metadata) ?? {} });
    return session;
  }

  private createPortalSession(params: FormObject): StripeObject {
    this.check(params, { customer: "string", return_url: "string" });
    const customer = params.customer as string | undefined;
    if (customer === undefined) throw required("customer");
    if (!this.customers.has(customer)) throw missing("customer", customer, "customer");
    const session: StripeObject = {
      id: stripeId("bps"),
      object: "billing_portal.session",
      configuration: "bpc_fakedefault",
      created: this.now(),
      customer,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: validUrl(params.return_url as string | undefined, "return_url"),
      url: `https://billing.stripe.com/p/session/test_${crypto.randomUUID().replaceAll("-", "")}`,
    };
    this.portalSessions.push(session);
    return session;
  }

  private retrieveSubscription(id: string, params: FormObject): StripeObject {
    this.check(params, {});
    return this.subscription(id);
  }

  /** The proration lines of moving `items` to new prices at `prorationDate`: a credit for the old price, a charge for the new. */
  private prorations(subscription: StripeObject, items: FormObject[], prorationDate: number, param: string): { lines: LineInput[]; changes: [StripeObject, FakePrice][] } {
    const own = (subscription.items as { data: StripeObject[] }).data;
    const lines: LineInput[] = [];
    const changes: [StripeObject, FakePrice][] = [];
    for (const [index, input] of items.entries()) {
      const item = own.find((candidate) => candidate.id === input.id);
      if (!item) throw invalid(`Subscription item ${String(input.id)} does not belong to subscription ${subscription.id}.`, `${param}[${index}][id]`);
      if (input.price === undefined) continue;
      const next = this.price(input.price as string, `${param}[${index}][price]`);
      const current = this.price((item.price as StripeObject).id, `${param}[${index}][price]`);
      const start = item.current_period_start as number;
      const end = item.current_period_end as number;
      if (prorationDate < start || prorationDate > end) throw invalid("proration_date must be within the subscription's current period.", "proration_date");
      const fraction = (end - prorationDate) / (end - start);
      const base = { currency: next.currency, proration: true, subscription: subscription.id, subscriptionItem: item.id, period: { start: prorationDate, end } };
      lines.push({ ...base, amount: -Math.round(current.unit_amount * fraction), description: `Unused time on ${current.id}`, price: current });
      lines.push({ ...base, amount: Math.round(next.unit_amount * fraction), description: `Remaining time on ${next.id}`, price: next });
      changes.push([item, next]);
    }
    return { lines, changes };
  }

  private prorationInputs(params: FormObject, param: string): { items: FormObject[]; behavior: string; date: number } {
    const behavior = (params.proration_behavior as string | undefined) ?? "create_prorations";
    if (!prorationBehaviors.has(behavior)) throw invalid(`Invalid proration_behavior: must be one of always_invoice, create_prorations, or none`, param.replace("items", "proration_behavior"));
    const date = params.proration_date === undefined ? this.now() : Number(params.proration_date);
    return { items: (params.items as FormObject[] | undefined) ?? [], behavior, date };
  }

  private previewInvoice(params: FormObject): StripeObject {
    this.check(params, {
      customer: "string",
      subscription: "string",
      subscription_details: { items: itemsShape, proration_behavior: "string", proration_date: "integer" },
    });
    if (params.subscription === undefined) throw invalid("This fake previews changes of an existing subscription only.", "subscription");
    const subscription = this.subscription(params.subscription as string, "subscription");
    if (params.customer !== undefined && params.customer !== subscription.customer) throw invalid(`The subscription ${subscription.id} does not belong to customer ${String(params.customer)}.`, "customer");
    const { items, behavior, date } = this.prorationInputs((params.subscription_details as FormObject | undefined) ?? {}, "subscription_details[items]");
    const { lines, changes } = this.prorations(subscription, items, date, "subscription_details[items]");
    const shown = behavior === "none" ? [] : lines;
    // Without always_invoice the prorations wait for the next renewal, which the preview then shows.
    if (behavior !== "always_invoice") {
      for (const [item, price] of changes) {
        const end = item.current_period_end as number;
        shown.push({ amount: price.unit_amount, currency: price.currency, description: `1 × ${price.id}`, proration: false, subscription: subscription.id, subscriptionItem: item.id, price, period: { start: end, end: end + (end - (item.current_period_start as number)) } });
      }
    }
    return invoiceObject(stripeId("upcoming_in"), subscription, shown, this.now(), "draft");
  }

  private changeSubscription(id: string, params: FormObject): StripeObject {
    this.check(params, { items: itemsShape, proration_behavior: "string", proration_date: "integer", metadata: "metadata" });
    const subscription = this.subscription(id);
    if (subscription.status === "canceled") throw invalid("A canceled subscription can only update its cancellation_details and metadata.");
    const { items, behavior, date } = this.prorationInputs(params, "items");
    const { lines, changes } = this.prorations(subscription, items, date, "items");
    const previous = { items: structuredClone(subscription.items) };
    for (const [item, price] of changes) item.price = priceObject(price, this.now());
    if (params.metadata) subscription.metadata = params.metadata;
    if (behavior === "always_invoice" && lines.length > 0) {
      const invoice = invoiceObject(stripeId("in"), subscription, lines, this.now(), "paid");
      this.invoices.push(invoice);
      subscription.latest_invoice = invoice.id;
      this.emit("invoice.paid", invoice);
    }
    this.emit("customer.subscription.updated", subscription, previous);
    return subscription;
  }

  private error(status: number, body: StripeErrorBody): Response {
    return this.json(status, { error: body });
  }

  private json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
    return new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": "application/json", "Request-Id": stripeId("req"), "Stripe-Version": Stripe.API_VERSION, ...headers },
    });
  }
}

/** A started fake with the given prices; stop it when done. */
export function startFakeStripeApi(options: { secretKey: string; webhookSecret: string; prices: FakePrice[]; now?: () => number }): FakeStripeApi {
  return new FakeStripeApi(options.secretKey, options.webhookSecret, options.prices, options.now).start();
}
