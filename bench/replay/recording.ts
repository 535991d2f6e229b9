// A seeded recording of one visit to the typical page (page.ts), event for event as
// @rrweb/record emits them with our SDK's defaults (inputs masked), then cut into the chunks the
// SDK sends. Rates follow rrweb's own: mouse positions sampled every 50 ms and sent in one
// MouseMove event every 500 ms while the pointer moves, scrolls at most every 100 ms, one Input
// event per keystroke. The visit alternates active spells (moving, scrolling, clicking, typing)
// with idle ones, in which rrweb records nothing. Clicks on "Add to basket" change the basket's
// count and show a toast (mutations); "load more" adds products, a filter removes some; the
// console plugin records an occasional log, warning or error.
import { mulberry32 } from "../ingest/generator.ts";
import { typicalPage, type TypicalPage } from "./page.ts";

/** rrweb's EventType and IncrementalSource values used here. */
const eventType = { fullSnapshot: 2, incremental: 3, meta: 4, plugin: 6 } as const;
const source = { mutation: 0, mouseMove: 1, mouseInteraction: 2, scroll: 3, input: 5 } as const;
/** rrweb's MouseInteractions. */
const interaction = { mouseUp: 0, mouseDown: 1, click: 2, focus: 5, blur: 6 } as const;

/** rrweb samples the pointer at most every 50 ms and sends the positions every 500 ms (its mousemoveCallback default). */
const mousePositionMs = 50;
const mouseMoveEventMs = 500;
/** rrweb's scroll sampling default. */
const scrollEventMs = 100;
/** How often our SDK sends what it recorded: one chunk per 5 s of recording (none when nothing was recorded). */
export const chunkIntervalMs = 5_000;

const viewport = { width: 1440, height: 900 };
const pageHeight = 4_200;

export interface RrwebEvent {
  type: number;
  timestamp: number;
  data: Record<string, unknown>;
}

export interface RecordingChunk {
  seq: number;
  events: RrwebEvent[];
}

export interface Recording {
  events: RrwebEvent[];
  chunks: RecordingChunk[];
  /** From the first event to the last. */
  durationMs: number;
  clicks: number;
  keypresses: number;
  consoleErrors: number;
}

const consoleMessages = [
  ["log", '"analytics: page ready"'],
  ["log", '"basket: synced 2 items"'],
  ["warn", '"Image loaded lazily: https://shop.example.com/images/cotton-tee-480w.webp"'],
  ["error", '"TypeError: Cannot read properties of undefined (reading \'price\')"'],
] as const;

/** A visit of about `durationMs` starting at `startMs`, from `random` (a seeded generator). */
export function recordVisit(random: () => number, startMs: number, durationMs: number): Recording {
  const page: TypicalPage = typicalPage(random);
  const events: RrwebEvent[] = [];
  const counts = { clicks: 0, keypresses: 0, consoleErrors: 0 };
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low));
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const endMs = startMs + durationMs;
  let now = startMs;
  const pointer = { x: between(0, viewport.width), y: between(0, viewport.height) };
  let scrollY = 0;
  let basket = 0;
  const shown = [...page.ids.products];
  const push = (type: number, data: Record<string, unknown>) => events.push({ type, timestamp: now, data });
  const incremental = (data: Record<string, unknown>) => push(eventType.incremental, data);

  push(eventType.meta, { href: "https://shop.example.com/collections/autumn?utm_source=newsletter", width: viewport.width, height: viewport.height });
  push(eventType.fullSnapshot, { node: page.root, initialOffset: { left: 0, top: 0 } });

  const moveFor = (ms: number) => {
    const until = now + ms;
    while (now < until) {
      const positions = [];
      const batchStart = now;
      for (let at = 0; at < mouseMoveEventMs; at += mousePositionMs + between(0, 30)) {
        pointer.x = Math.max(0, Math.min(viewport.width - 1, pointer.x + between(-40, 41)));
        pointer.y = Math.max(0, Math.min(viewport.height - 1, pointer.y + between(-30, 31)));
        positions.push({ x: pointer.x, y: pointer.y, id: pick(shown), timeOffset: at - mouseMoveEventMs });
      }
      now = batchStart + mouseMoveEventMs;
      incremental({ source: source.mouseMove, positions });
    }
  };
  const click = (id: number) => {
    for (const type of [interaction.mouseDown, interaction.mouseUp, interaction.click]) {
      now += between(40, 120);
      incremental({ source: source.mouseInteraction, type, id, x: pointer.x, y: pointer.y, pointerType: 0 });
    }
    counts.clicks++;
  };
  const scroll = () => {
    const steps = between(5, 20);
    const direction = random() < 0.7 ? 1 : -1;
    for (let step = 0; step < steps; step++) {
      now += scrollEventMs + between(0, 60);
      scrollY = Math.max(0, Math.min(pageHeight - viewport.height, scrollY + direction * between(40, 160)));
      incremental({ source: source.scroll, id: 1, x: 0, y: scrollY });
    }
  };
  const typeInto = (id: number) => {
    now += between(100, 300);
    incremental({ source: source.mouseInteraction, type: interaction.focus, id });
    const length = between(4, 24);
    for (let typed = 1; typed <= length; typed++) {
      now += between(90, 260);
      incremental({ source: source.input, text: "*".repeat(typed), isChecked: false, id });
      counts.keypresses++;
    }
    now += between(200, 800);
    incremental({ source: source.mouseInteraction, type: interaction.blur, id });
  };
  const addToBasket = () => {
    click(pick(page.ids.buttons));
    now += between(80, 250);
    basket++;
    const toast = page.nextId();
    incremental({
      source: source.mutation,
      texts: [{ id: page.ids.cartCount, value: String(basket) }],
      attributes: [],
      removes: [],
      adds: [{ parentId: page.ids.body, nextId: null, node: { type: 2, tagName: "div", attributes: { class: "toast", role: "status" }, childNodes: [], id: toast } }, { parentId: toast, nextId: null, node: { type: 3, textContent: "Added to your basket", id: page.nextId() } }],
    });
    now += between(2_500, 3_500);
    incremental({ source: source.mutation, texts: [], attributes: [], removes: [{ parentId: page.ids.body, id: toast }], adds: [] });
  };
  const loadMore = () => {
    click(pick(page.ids.buttons));
    now += between(150, 600);
    const adds = Array.from({ length: 6 }, (_, at) => {
      const node = page.product(`${pick(["Wool", "Linen", "Cotton", "Denim"])} ${pick(["Jumper", "Dress", "Shorts", "Cap"])} ${at + 1}`, `£${between(15, 120)}.00`);
      shown.push(node.id);
      return { parentId: page.ids.productList, nextId: null, node };
    });
    incremental({ source: source.mutation, texts: [], attributes: [], removes: [], adds });
  };
  const filter = () => {
    click(pick(page.ids.links));
    now += between(100, 400);
    const removed = shown.splice(between(0, Math.max(1, shown.length - 8)), between(2, 8));
    incremental({ source: source.mutation, texts: [], attributes: [{ id: page.ids.productList, attributes: { class: "products filtered" } }], removes: removed.map((id) => ({ parentId: page.ids.productList, id })), adds: [] });
  };
  const logToConsole = () => {
    const [level, message] = pick(consoleMessages);
    if (level === "error") counts.consoleErrors++;
    push(eventType.plugin, { plugin: "rrweb/console@1", payload: { level, trace: ["https://shop.example.com/assets/app-4f2a9c.js:1:48211"], payload: [message] } });
  };

  while (now < endMs) {
    // An active spell: moving, with a few actions on the way, then an idle spell with no events.
    const activeUntil = now + between(4_000, 30_000);
    while (now < activeUntil) {
      moveFor(between(500, 3_000));
      const action = random();
      if (action < 0.3) scroll();
      else if (action < 0.4) addToBasket();
      else if (action < 0.5) typeInto(pick(page.ids.inputs));
      else if (action < 0.55) loadMore();
      else if (action < 0.58) filter();
      else if (action < 0.63) click(pick(page.ids.links));
      if (random() < 0.05) logToConsole();
    }
    now += between(2_000, 25_000);
  }
  const recorded = events.filter((event) => event.timestamp <= endMs);
  return { events: recorded, chunks: chunked(recorded), durationMs: recorded.at(-1)!.timestamp - startMs, ...counts };
}

/** Visits of the typical page are 2 to 8 minutes long. */
const visitMsMin = 2 * 60_000;
const visitMsMax = 8 * 60_000;

/** `count` seeded visits, each starting at `startMs`. */
export function recordVisits(seed: number, count: number, startMs: number): Recording[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => recordVisit(random, startMs, visitMsMin + Math.floor(random() * (visitMsMax - visitMsMin))));
}

/** The SDK's chunks: the events of each 5 s of recording, in order, numbered from 0 (an empty 5 s sends nothing). */
function chunked(events: RrwebEvent[]): RecordingChunk[] {
  const chunks: RecordingChunk[] = [];
  const startMs = events[0]!.timestamp;
  let window = -1;
  for (const event of events) {
    const at = Math.floor((event.timestamp - startMs) / chunkIntervalMs);
    if (at !== window) {
      chunks.push({ seq: chunks.length, events: [] });
      window = at;
    }
    chunks.at(-1)!.events.push(event);
  }
  return chunks;
}
