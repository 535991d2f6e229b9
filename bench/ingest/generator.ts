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

const encoder = new TextEncoder();
const hexDigits = encoder.encode("0123456789abcdef");
/** Where a template's uuid goes: after `"uuid":"`, in place of the `@`. */
const uuidSlot = '"uuid":"@"';

/**
 * Request bodies of fresh events from templates, built as bytes: each event's JSON is copied
 * from its template with a new UUIDv7 spliced in (the time of a Bun.randomUUIDv7() per body,
 * the 74 random bits drawn per event, as random as an SDK's), so the driver spends little of the
 * CPU it shares with the server it measures.
 */
export class BatchBodies {
  private readonly before: Uint8Array[];
  private readonly after: Uint8Array[];
  private readonly random: () => number;

  constructor(templates: string[], seed = 1) {
    this.before = templates.map((template) => encoder.encode(template.slice(0, template.indexOf(uuidSlot) + uuidSlot.length - 2)));
    this.after = templates.map((template) => encoder.encode(template.slice(template.indexOf(uuidSlot) + uuidSlot.length - 1)));
    this.random = mulberry32(seed);
  }

  /** `count` random hex digits at `at`. */
  private randomHex(out: Uint8Array, at: number, count: number): void {
    for (let written = 0; written < count; written += 6) {
      let bits = Math.floor(this.random() * 0x1000000);
      for (let digit = Math.min(6, count - written) - 1; digit >= 0; digit--) {
        out[at + written + digit] = hexDigits[bits & 15]!;
        bits >>>= 4;
      }
    }
  }

  /**
   * `{"api_key", "sent_at", "batch"}` of `size` events from template `start` on (wrapping
   * around); when `requestHead` is given, the bytes it makes for the body's length come first
   * (a whole HTTP request in one buffer, without copying the body into another).
   */
  body(apiKey: string, sentAt: string, start: number, size: number, requestHead?: (bodyBytes: number) => Uint8Array): Uint8Array {
    const head = encoder.encode(`{"api_key":"${apiKey}","sent_at":"${sentAt}","batch":[`);
    let length = head.byteLength + 2 + (size - 1);
    for (let i = 0; i < size; i++) {
      const template = (start + i) % this.before.length;
      length += this.before[template]!.byteLength + 36 + this.after[template]!.byteLength;
    }
    const prefix = requestHead?.(length) ?? new Uint8Array(0);
    const out = new Uint8Array(prefix.byteLength + length);
    out.set(prefix);
    out.set(head, prefix.byteLength);
    let at = prefix.byteLength + head.byteLength;
    // The time and version of a UUIDv7 made now ("xxxxxxxx-xxxx-7"); the 74 random bits are drawn per event.
    const stamp = encoder.encode(Bun.randomUUIDv7().slice(0, 15));
    for (let i = 0; i < size; i++) {
      const template = (start + i) % this.before.length;
      if (i > 0) out[at++] = 0x2c;
      out.set(this.before[template]!, at);
      at += this.before[template]!.byteLength;
      for (let k = 0; k < 15; k++) out[at + k] = stamp[k]!;
      this.randomHex(out, at + 15, 3);
      out[at + 18] = 0x2d;
      // The variant: binary 10, then two random bits (8, 9, a or b).
      out[at + 19] = hexDigits[8 + Math.floor(this.random() * 4)]!;
      this.randomHex(out, at + 20, 3);
      out[at + 23] = 0x2d;
      this.randomHex(out, at + 24, 12);
      at += 36;
      out.set(this.after[template]!, at);
      at += this.after[template]!.byteLength;
    }
    out[at++] = 0x5d;
    out[at++] = 0x7d;
    return out;
  }
}
