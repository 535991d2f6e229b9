// Builders for replay chunks as an SDK sends them to POST /r: rrweb events of a small page (a
// Meta event with the URL, a full snapshot, clicks, inputs, a console error) and chunk bodies.
export type ChunkFields = Record<string, any>;

/** rrweb event types and sources the builders use. */
export const rrweb = { fullSnapshot: 2, incremental: 3, meta: 4, plugin: 6, mouseMove: 1, mouseInteraction: 2, input: 5, click: 2 } as const;

export const metaEvent = (timestamp: number, href: string) => ({ type: rrweb.meta, timestamp, data: { href, width: 1280, height: 720 } });
export const fullSnapshot = (timestamp: number) => ({
  type: rrweb.fullSnapshot,
  timestamp,
  data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { left: 0, top: 0 } },
});
export const clickEvent = (timestamp: number) => ({ type: rrweb.incremental, timestamp, data: { source: rrweb.mouseInteraction, type: rrweb.click, id: 5, x: 10, y: 20 } });
export const inputEvent = (timestamp: number, text: string) => ({ type: rrweb.incremental, timestamp, data: { source: rrweb.input, id: 7, text, isChecked: false } });
export const moveEvent = (timestamp: number) => ({ type: rrweb.incremental, timestamp, data: { source: rrweb.mouseMove, positions: [{ x: 1, y: 2, id: 5, timeOffset: 0 }] } });
export const consoleError = (timestamp: number, message: string) => ({
  type: rrweb.plugin,
  timestamp,
  data: { plugin: "rrweb/console@1", payload: { level: "error", trace: [], payload: [JSON.stringify(message)] } },
});

/** A page's first events: its URL, then its DOM. */
export const pageStart = (timestamp: number, href: string) => [metaEvent(timestamp, href), fullSnapshot(timestamp + 1)];

/** A valid chunk; `overrides` replace fields (undefined removes one from the JSON). */
export function replayChunk(overrides: ChunkFields = {}): ChunkFields {
  const start = Date.now() - 60_000;
  return {
    session_id: Bun.randomUUIDv7(),
    window_id: Bun.randomUUIDv7(),
    seq: 0,
    distinct_id: "user-1",
    platform: "web",
    mode: "dom",
    events: [...pageStart(start, "https://shop.example/"), clickEvent(start + 1000)],
    ...overrides,
  };
}

export const replayBody = (apiKey: string, chunks: unknown[], extra: Record<string, unknown> = {}) => ({ api_key: apiKey, sent_at: new Date().toISOString(), chunks, ...extra });

export const replayOk = (accepted: number, rejected: unknown[] = [], sampledOut: string[] = []) => ({ accepted, sampled_out: sampledOut, rejected });
