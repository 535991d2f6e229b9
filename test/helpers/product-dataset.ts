// A seeded, realistic product's events for the console's screenshots, its end-to-end tests and
// bench/console: visitors arrive over the days (more later, as a product grows), browse,
// some sign up (anonymous device merged into the user, person properties set, a company
// group), start trials, pay (integer minor units with a currency) and use features; activity
// decays with time since the first visit, so retention, lifecycle and stickiness have shape.
// The same options give the same events, uuids included.
import { mulberry32 } from "../../bench/ingest/generator.ts";

export interface ProductEvent {
  uuid: string;
  event: string;
  timestamp: string;
  distinct_id: string;
  anon_id?: string;
  session_id: string;
  properties: Record<string, unknown>;
  $set?: Record<string, unknown>;
  groups?: Record<string, string>;
  lib: { name: string; version: string };
}

export interface ProductDatasetOptions {
  seed: number;
  users: number;
  days: number;
  /** The end of the last day (events are before it). */
  end: Date;
  /** Stop after this many events (the stream is cut, not thinned). */
  maxEvents?: number;
}

const dayMs = 86_400_000;
const pages = ["/", "/pricing", "/docs", "/blog", "/features", "/changelog", "/app", "/app/reports", "/app/settings"];
const browsers = ["Chrome", "Chrome", "Chrome", "Safari", "Safari", "Firefox", "Edge"];
const systems = ["Mac OS X", "Windows", "Windows", "iOS", "Android", "Linux"];
const sources = ["google", "google", "direct", "direct", "newsletter", "twitter", "github"];
const countries = ["US", "US", "GB", "DE", "FR", "IN", "BR", "PK", "AE"];
const plans = [
  { plan: "starter", amount: 2_900 },
  { plan: "growth", amount: 9_900 },
  { plan: "scale", amount: 29_900 },
];
const features = ["created_dashboard", "invited_teammate", "exported_report", "created_insight"];
const firstNames = ["Ava", "Noah", "Mia", "Liam", "Zara", "Omar", "Lena", "Ravi", "Sofia", "Yuki", "Amara", "Hugo"];
const lastNames = ["Khan", "Smith", "Müller", "Garcia", "Okafor", "Rossi", "Tanaka", "Silva", "Dubois", "Ahmed"];

/** A UUIDv7 at `ms` whose random bits come from `random`, so a seeded stream has stable ids. */
function uuidV7(ms: number, random: () => number): string {
  const hex = (bits: number, digits: number) => Math.floor(bits).toString(16).padStart(digits, "0");
  const time = hex(ms, 12);
  const r = () => random() * 0x10000;
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex(random() * 0x1000, 3)}-${hex(0x8000 | (r() & 0x3fff), 4)}-${hex(r(), 4)}${hex(r(), 4)}${hex(r(), 4)}`;
}

/** The events in time order per user (not across users): ingest does not need global order. */
export function* productEvents(options: ProductDatasetOptions): Generator<ProductEvent> {
  const random = mulberry32(options.seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const start = options.end.getTime() - options.days * dayMs;
  const lib = { name: "web", version: "2.4.0" };
  let emitted = 0;
  for (let user = 0; user < options.users; user++) {
    // sqrt skews first visits late: a growing product.
    const firstDay = Math.floor(Math.sqrt(random()) * options.days);
    const anonId = `anon-${user.toString(36)}-${Math.floor(random() * 1e6).toString(36)}`;
    const device = { $browser: pick(browsers), $os: pick(systems), utm_source: pick(sources), $geoip_country_code: pick(countries) };
    const company = `company-${Math.floor(random() * Math.max(1, options.users / 8))}`;
    let distinctId = anonId;
    let signedUp = false;
    let paying = false;
    let trialDay = -1;
    for (let day = firstDay; day < options.days; day++) {
      const age = day - firstDay;
      const activeChance = day === firstDay ? 1 : (paying ? 0.55 : signedUp ? 0.35 : 0.12) * Math.pow(0.985, age);
      if (random() >= activeChance) continue;
      let at = start + day * dayMs + Math.floor((0.3 + 0.6 * random()) * dayMs);
      const sessionId = uuidV7(at, random);
      const emit = (event: string, properties: Record<string, unknown>, extra: Partial<ProductEvent> = {}): ProductEvent => {
        at += Math.floor(5_000 + random() * 90_000);
        return {
          uuid: uuidV7(at, random),
          event,
          timestamp: new Date(at).toISOString(),
          distinct_id: distinctId,
          ...(signedUp ? { anon_id: anonId } : {}),
          session_id: sessionId,
          properties: { ...device, ...properties },
          ...(signedUp ? { groups: { company } } : {}),
          lib,
          ...extra,
        };
      };
      const batch: ProductEvent[] = [];
      const views = 1 + Math.floor(random() * 5);
      for (let view = 0; view < views; view++) {
        const path = view === 0 && day === firstDay ? pick(["/", "/", "/pricing", "/blog", "/docs"]) : pick(signedUp ? pages.slice(6) : pages);
        batch.push(emit("$pageview", { $pathname: path, $current_url: `https://acme.example${path}` }));
      }
      if (!signedUp && age < 3 && random() < 0.3) {
        batch.push(emit("$pageview", { $pathname: "/signup", $current_url: "https://acme.example/signup" }));
        if (random() < 0.55) {
          distinctId = `user-${user}`;
          signedUp = true;
          const name = `${pick(firstNames)} ${pick(lastNames)}`;
          batch.push(emit("$identify", { $anon_distinct_id: anonId }, { $set: { name, email: `user${user}@acme.example`, plan: "free", signup_source: device.utm_source } }));
          batch.push(emit("signed_up", { method: pick(["email", "google", "github"]) }));
        }
      }
      if (signedUp && trialDay < 0 && random() < 0.25) {
        trialDay = day;
        batch.push(emit("started_trial", { plan: pick(plans).plan }));
      }
      if (signedUp && !paying && trialDay >= 0 && day - trialDay >= 1 && random() < 0.2) {
        paying = true;
        const { plan, amount } = pick(plans);
        const currency = pick(["USD", "USD", "EUR", "GBP"]);
        batch.push(emit("purchase_completed", { plan, amount, currency }, { $set: { plan } }));
      }
      if (signedUp) {
        const uses = Math.floor(random() * (paying ? 5 : 3));
        for (let use = 0; use < uses; use++) batch.push(emit(pick(features), {}));
      }
      for (const event of batch) {
        if (options.maxEvents !== undefined && emitted >= options.maxEvents) return;
        emitted++;
        yield event;
      }
    }
  }
}

export interface IngestSummary {
  accepted: number;
  batches: number;
}

const batchEvents = 1_000;
const concurrentBatches = 4;

/**
 * Sends the events to `{ingestUrl}/batch` with the public key, 1,000 per request, as an SDK
 * would: a 429 (the project's ingest rate, 5,000 events/s) is sent again after its Retry-After
 * (the same uuids, so nothing doubles); any other refusal fails.
 */
export async function sendProductEvents(ingestUrl: string, apiKey: string, events: Iterable<ProductEvent>): Promise<IngestSummary> {
  const summary: IngestSummary = { accepted: 0, batches: 0 };
  const inFlight = new Set<Promise<void>>();
  const send = async (batch: ProductEvent[]) => {
    let response: Response;
    for (;;) {
      response = await fetch(`${ingestUrl}/batch`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ api_key: apiKey, sent_at: new Date().toISOString(), batch }),
      });
      if (response.status !== 429) break;
      await response.arrayBuffer();
      await Bun.sleep(Number(response.headers.get("Retry-After") ?? 1) * 1000);
    }
    const answer = (await response.json()) as { accepted?: number; rejected?: unknown[] };
    if (response.status !== 200 || answer.accepted !== batch.length) throw new Error(`ingest answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
    summary.accepted += batch.length;
    summary.batches++;
  };
  let batch: ProductEvent[] = [];
  const flush = async () => {
    const sending = send(batch).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    batch = [];
    if (inFlight.size >= concurrentBatches) await Promise.race(inFlight);
  };
  for (const event of events) {
    batch.push(event);
    if (batch.length === batchEvents) await flush();
  }
  if (batch.length > 0) await flush();
  await Promise.all(inFlight);
  return summary;
}
