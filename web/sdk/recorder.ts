// The recording module (/sdk/v1/recorder.js), loaded by the core only when recording is on.
// rrweb records the page with every input masked unless told otherwise, text under
// mask_text_selector masked, block_selector elements left out, and nothing fetched: no image
// is re-requested to inline it (inlineImages off), stylesheets are read from the rules the page
// already loaded, fonts and canvases are not collected, and rrweb has no network plugin here.
// Events are cut into chunks of one session (each with the session's next sequence number) and
// posted to {api_host}/r within its limits, every flushIntervalMs and when the page is hidden.
import { record } from "@rrweb/record";
import type { eventWithTime } from "@rrweb/types";
import { Delivery } from "./delivery.ts";
import type { Recorder, RecorderHost, StartRecorder } from "./options.ts";
import { beaconBytesMax } from "./transport.ts";

/** Ingest's limits for POST /r (docs/replay.md). */
export const chunkEventsMax = 20_000;
export const requestChunksMax = 50;
/** A request (and so a chunk) stays under this many characters before compression; one larger event travels alone. */
export const requestCharactersMax = 1_000_000;
export const recordingFlushIntervalMs = 2000;

const eventType = { fullSnapshot: 2, incrementalSnapshot: 3, meta: 4 } as const;
/** rrweb's incremental sources that are a person's doing: mouse move and interaction, scroll, input, touch, media, drag, selection. */
const activitySources: ReadonlySet<number> = new Set([1, 2, 3, 5, 6, 7, 12, 14]);

const isActivity = (event: eventWithTime) =>
  event.type === eventType.incrementalSnapshot && activitySources.has((event.data as { source: number }).source);

export const startRecorder: StartRecorder = (host: RecorderHost): Recorder => {
  let sessionId = host.sessionId(false);
  let sampledOut = host.isSampledOut(sessionId);
  /** A new session waits for its full snapshot: events before it could not be replayed. */
  let awaitingSnapshot = false;
  let buffer: string[] = [];
  let bufferCharacters = 0;

  const delivery = new Delivery({
    url: `${host.apiHost}/r`,
    envelope: (items) => `{"api_key":${JSON.stringify(host.apiKey)},"sent_at":"${new Date().toISOString()}","chunks":[${items}]}`,
    itemsMax: requestChunksMax,
    bytesMax: requestCharactersMax,
    onAnswer: (answer) => {
      const ids = (answer as { sampled_out?: unknown } | null)?.sampled_out;
      if (!Array.isArray(ids)) return;
      for (const id of ids) if (typeof id === "string") host.markSampledOut(id);
      if (ids.includes(sessionId)) {
        sampledOut = true;
        buffer = [];
        bufferCharacters = 0;
      }
    },
  });

  /** Moves the buffered events into chunks of at most `charactersMax` characters (one larger event alone). */
  const cutChunks = (charactersMax: number) => {
    while (buffer.length > 0) {
      let count = 0;
      let characters = 0;
      while (count < buffer.length && count < chunkEventsMax && (count === 0 || characters + buffer[count]!.length < charactersMax)) {
        characters += buffer[count]!.length + 1;
        count++;
      }
      const events = buffer.splice(0, count).join(",");
      const head = { session_id: sessionId, window_id: host.windowId(), seq: host.nextSeq(sessionId), distinct_id: host.distinctId(), platform: "web", mode: "dom" };
      delivery.push(`${JSON.stringify(head).slice(0, -1)},"events":[${events}]}`);
    }
    bufferCharacters = 0;
  };
  // Room for a chunk's own fields and the request's envelope.
  const chunkCharactersMax = requestCharactersMax - 1000;

  const emit = (event: eventWithTime) => {
    const current = host.sessionId(isActivity(event));
    if (current !== sessionId) {
      cutChunks(chunkCharactersMax);
      sessionId = current;
      sampledOut = host.isSampledOut(sessionId);
      if (event.type !== eventType.meta) {
        awaitingSnapshot = true;
        // Not from inside rrweb's own emit: the snapshot's events come next, through emit.
        setTimeout(() => record.takeFullSnapshot(true));
      }
    }
    if (sampledOut) return;
    if (awaitingSnapshot) {
      if (event.type !== eventType.meta) return;
      awaitingSnapshot = false;
    }
    const text = JSON.stringify(event);
    buffer.push(text);
    bufferCharacters += text.length;
    if (bufferCharacters >= chunkCharactersMax) {
      cutChunks(chunkCharactersMax);
      void delivery.flush();
    }
  };

  const { maskAllInputs, maskTextSelector, blockSelector } = host.options;
  const stopRecording = record({
    emit,
    maskAllInputs,
    maskTextSelector,
    blockSelector,
    inlineImages: false,
    inlineStylesheet: true,
    collectFonts: false,
    recordCanvas: false,
    recordCrossOriginIframes: false,
  });

  const flush = () => {
    cutChunks(chunkCharactersMax);
    void delivery.flush();
  };
  const timer = setInterval(flush, recordingFlushIntervalMs);
  const onHide = () => {
    // Chunks a beacon can carry; a single larger event goes by fetch.
    cutChunks(beaconBytesMax - 1000);
    delivery.sendAllOnHide();
  };
  const onVisibility = () => document.visibilityState === "hidden" && onHide();
  addEventListener("pagehide", onHide);
  document.addEventListener("visibilitychange", onVisibility);

  return {
    stop() {
      stopRecording?.();
      clearInterval(timer);
      removeEventListener("pagehide", onHide);
      document.removeEventListener("visibilitychange", onVisibility);
      flush();
    },
  };
};

window.svcAnalyticsRecorder = startRecorder;
