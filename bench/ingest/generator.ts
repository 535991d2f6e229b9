// Seeded generator of realistic native events: Zipf-distributed users and event names,
// sessions, and the properties web SDKs send (about 400 bytes of JSON per event).
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Samples ranks 0..n-1 with probability proportional to 1/(rank+1)^s (inverse CDF over a table). */
export function zipf(n: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / Math.pow(rank + 1, s);
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

const eventNames = [
  "$pageview", "$pageleave", "$autocapture", "signed_up", "logged_in", "clicked_cta", "viewed_pricing", "started_trial",
  "added_to_cart", "removed_from_cart", "checkout_started", "purchase_completed", "searched", "filtered_results",
  "shared_link", "invited_teammate", "created_project", "uploaded_file", "exported_report", "opened_settings",
];
const paths = ["/", "/pricing", "/docs", "/blog", "/signup", "/login", "/app", "/app/settings", "/app/reports", "/checkout"];
const browsers = ["Chrome", "Safari", "Firefox", "Edge", "Samsung Internet"];
const systems = ["Mac OS X", "Windows", "iOS", "Android", "Linux"];
const plans = ["free", "starter", "growth", "scale"];
const countries = ["GB", "US", "DE", "FR", "PK", "AE", "IN", "BR"];

export interface GeneratorOptions {
  seed: number;
  users: number;
}

/** One generated event before ingest gives it a uuid and a timestamp. */
export interface GeneratedEvent {
  /** The user's Zipf rank: `distinct_id` is `user-{userIndex}`. */
  userIndex: number;
  event: string;
  distinct_id: string;
  session_id: string;
  properties: Record<string, unknown>;
  lib: { name: string; version: string };
}

/** The seeded event stream (the same sequence for the same options, whoever consumes it). */
export function* generateEvents(options: GeneratorOptions, count: number): Generator<GeneratedEvent> {
  const random = mulberry32(options.seed);
  const user = zipf(options.users, 1.1, random);
  const eventName = zipf(eventNames.length, 1.0, random);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const sessions = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const userIndex = user();
    if (!sessions.has(userIndex) || random() < 0.05) sessions.set(userIndex, Bun.randomUUIDv7());
    const path = pick(paths);
    yield {
      userIndex,
      event: eventNames[eventName()]!,
      distinct_id: `user-${userIndex}`,
      session_id: sessions.get(userIndex)!,
      properties: {
        $current_url: `https://app.example.com${path}`,
        $pathname: path,
        $browser: pick(browsers),
        $os: pick(systems),
        $screen_width: pick([390, 768, 1280, 1440, 1920]),
        plan: pick(plans),
        country_hint: pick(countries),
        items: Math.floor(random() * 5),
        price: Math.floor(random() * 10_000),
        currency: "USD",
        is_returning: random() < 0.6,
      },
      lib: { name: "posthog-js", version: "1.200.0" },
    };
  }
}

/**
 * Event templates: each is the JSON of one event with `"uuid":"@"` as a placeholder, so the
 * load driver only splices in fresh uuids per request (each request must carry new ids).
 */
export function eventTemplates(options: GeneratorOptions, count: number, timestamp: string): string[] {
  const templates: string[] = [];
  for (const { event, distinct_id, session_id, properties, lib } of generateEvents(options, count)) {
    templates.push(JSON.stringify({ uuid: "@", event, timestamp, distinct_id, session_id, properties, lib }));
  }
  return templates;
}

/** A 100-event batch body with fresh uuids, built from templates by splicing. */
export function batchBody(apiKey: string, sentAt: string, templates: string[], start: number, size: number): string {
  const parts: string[] = [];
  for (let i = 0; i < size; i++) {
    const template = templates[(start + i) % templates.length]!;
    parts.push(template.replace('"uuid":"@"', `"uuid":"${Bun.randomUUIDv7()}"`));
  }
  return `{"api_key":"${apiKey}","sent_at":"${sentAt}","batch":[${parts.join(",")}]}`;
}
