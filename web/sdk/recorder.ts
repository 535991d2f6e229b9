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
import { beaconBytesMax, utf8Bytes } from "./transport.ts";

/** Ingest's limits for POST /r (docs/replay.md). */
export const chunkEventsMax = 20_000;
export const requestChunksMax = 50;
/** A request (and so a chunk) stays under this many bytes before compression; one larger event travels alone. */
export const requestBytesMax = 1_000_000;
export const recordingFlushIntervalMs = 2000;

const eventType = { fullSnapshot: 2, incrementalSnapshot: 3, meta: 4 } as const;
/** rrweb's incremental sources that are a person's doing: mouse move and interaction, scroll, input, touch, media, drag, selection. */
const activitySources: ReadonlySet<number> = new Set([1, 2, 3, 5, 6, 7, 12, 14]);

const isActivity = (event: eventWithTime) =>
  event.type === eventType.incrementalSnapshot && activitySources.has((event.data as { source: number }).source);

/**
 * What rrweb masks as text: the site's selector, and with inputs masked every editable element
 * too (rich editors and chat boxes are contenteditable, not inputs, and rrweb would record what
 * is typed into them as text).
 */
export const editableSelector = '[contenteditable]:not([contenteditable="false"])';
function textMaskSelector(maskAllInputs: boolean, siteSelector: string | undefined): string | undefined {
  if (!maskAllInputs) return siteSelector;
  return siteSelector ? `${siteSelector},${editableSelector}` : editableSelector;
}

export const startRecorder: StartRecorder = (host: RecorderHost): Recorder => {
  let sessionId = host.sessionId(false);
  let sampledOut = host.isSampledOut(sessionId);
  /** A new session waits for its full snapshot: events before it could not be replayed. */
  let awaitingSnapshot = false;
  let buffer: string[] = [];
  /** The UTF-8 size of each buffered event, and their sum. */
  let bufferSizes: number[] = [];
  let bufferBytes = 0;

  const delivery = new Delivery({
    url: `${host.apiHost}/r`,
    envelope: (items) => `{"api_key":${JSON.stringify(host.apiKey)},"sent_at":"${new Date().toISOString()}","chunks":[${items}]}`,
    itemsMax: requestChunksMax,
    bytesMax: requestBytesMax,
    onAnswer: (answer) => {
      const ids = (answer as { sampled_out?: unknown } | null)?.sampled_out;
      if (!Array.isArray(ids)) return;
      for (const id of ids) if (typeof id === "string") host.markSampledOut(id);
      if (ids.includes(sessionId)) {
        sampledOut = true;
        buffer = [];
        bufferSizes = [];
        bufferBytes = 0;
      }
    },
  });

  /** Moves the buffered events into chunks of at most `bytesMax` bytes (one larger event alone). */
  const cutChunks = (bytesMax: number) => {
    while (buffer.length > 0) {
      let count = 0;
      let bytes = 0;
      while (count < buffer.length && count < chunkEventsMax && (count === 0 || bytes + bufferSizes[count]! < bytesMax)) {
        bytes += bufferSizes[count]! + 1;
        count++;
      }
      const events = buffer.splice(0, count).join(",");
      bufferSizes.splice(0, count);
      const seq = host.nextSeq(sessionId);
      // Null only for a session active for over 24 days without a pause: ingest could not number its chunks.
      if (seq === null) continue;
      const head = { session_id: sessionId, window_id: host.windowId(), seq, distinct_id: host.distinctId(), platform: "web", mode: "dom" };
      delivery.push(`${JSON.stringify(head).slice(0, -1)},"events":[${events}]}`);
    }
    bufferBytes = 0;
  };
  // Room for a chunk's own fields and the request's envelope.
  const chunkBytesMax = requestBytesMax - 1000;

  const emit = (event: eventWithTime) => {
    const current = host.sessionId(isActivity(event));
    if (current !== sessionId) {
      cutChunks(chunkBytesMax);
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
    const size = utf8Bytes(text);
    buffer.push(text);
    bufferSizes.push(size);
    bufferBytes += size;
    if (bufferBytes >= chunkBytesMax) {
      cutChunks(chunkBytesMax);
      void delivery.flush();
    }
  };

  const { maskAllInputs, maskTextSelector, blockSelector } = host.options;
  const stopRecording = record({
    emit,
    maskAllInputs,
    maskTextSelector: textMaskSelector(maskAllInputs, maskTextSelector),
    blockSelector,
    inlineImages: false,
    inlineStylesheet: true,
    collectFonts: false,
    recordCanvas: false,
    recordCrossOriginIframes: false,
  });

  const flush = () => {
    cutChunks(chunkBytesMax);
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
