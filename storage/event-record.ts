// What the write-ahead log holds for accepted events: one record per ingest request. The
// record keeps the request's JSON text as received (after decompression; rebuilt with only the
// stored events when the request held others or `$ip`: server/ingest/wal-body.ts) plus what ingest
// decided about each accepted event (its index in `batch`, corrected timestamp, sample rate,
// suspect mark, person index, location) and the request's locations and group types, so the
// request thread mostly writes bytes it already has instead of re-serialising events. Decoding
// rebuilds the stored events from both (event-buffer.ts).
//
// Layout: u8 format | u32 header length | header JSON | u32 event count |
//         per event: u32 index, f64 timestamp, f64 sample rate, u8 flags, u32 person index,
//         u16 location slot (a request has at most 1,000 events, so far fewer locations) |
//         body JSON text.
// Format 3, written before events had locations of their own, has no location slot and one
// `location` in its header; it is still read (a WAL written before an upgrade replays).

export interface StoredEvent {
  uuid: string;
  event: string;
  /** Epoch milliseconds (corrected for clock skew). */
  timestamp: number;
  distinct_id: string;
  anon_id: string | null;
  session_id: string | null;
  window_id: string | null;
  lib_name: string;
  lib_version: string;
  consent: "granted" | "pending" | "cookieless";
  /** Share of events kept by sampling (1 when not sampled); each stored event stands for 1/sample_rate. */
  sample_rate: number;
  geo_country: string | null;
  geo_region: string | null;
  geo_city: string | null;
  geo_timezone: string | null;
  is_suspect: boolean;
  /** The person's dense index in the project when the event was ingested (merges resolve through overrides). */
  person_index: number;
  groups: Record<string, string> | null;
  /** The group key of each of the project's group types by type index 0-4 (null: none). */
  group_keys: (string | null)[];
  set: Record<string, unknown> | null;
  set_once: Record<string, unknown> | null;
  properties: Record<string, unknown>;
}

/** A decoded WAL record: the project's identity and its stored events. */
export interface EventBatchRecord {
  project_id: string;
  data_id: number;
  environment: string;
  /** Epoch milliseconds when the region received the request. */
  received_at: number;
  events: StoredEvent[];
}

export interface Location {
  country: string | null;
  region: string | null;
  city: string | null;
  timezone: string | null;
}

export const noLocation: Location = { country: null, region: null, city: null, timezone: null };

/** Ingest's decision about one accepted event of the body's `batch`. */
export interface AcceptedEvent {
  index: number;
  timestamp: number;
  sampleRate: number;
  isSuspect: boolean;
  personIndex: number;
  /** Where the event came from: an index into its record's `locations`. */
  location: number;
}

/** What capture appends to the WAL: `body` is JSON text of `{batch: [native events], ...}`, already validated. */
export interface AcceptedBatch {
  projectId: string;
  dataId: number;
  environment: string;
  receivedAt: number;
  /**
   * Where the events came from, each distinct location once (AcceptedEvent.location points
   * here): the request's client address's, those of addresses events gave as `$ip`, and none for
   * events with `$geoip_disable` (server/ingest/event-origin.ts).
   */
  locations: Location[];
  /** The project's group types by name, with their index 0-4. */
  groupTypes: Record<string, number>;
  events: AcceptedEvent[];
  body: Uint8Array;
}

const recordFormat = 4;
/** The format before per-event locations: read, never written. */
const recordFormatWithoutLocations = 3;
const eventEntryBytes = 4 + 8 + 8 + 1 + 4 + 2;
const eventEntryBytesWithoutLocations = 4 + 8 + 8 + 1 + 4;
const suspectFlag = 1;

export interface RecordHeader {
  project_id: string;
  data_id: number;
  environment: string;
  received_at: number;
  locations: Location[];
  group_types: Record<string, number>;
}

/** A format-3 header: one location for every event of the record. */
interface HeaderWithoutLocations extends Omit<RecordHeader, "locations"> {
  location: Location;
}

/**
 * The record as two parts to write one after the other: the decisions, then the body as it
 * is (not copied: a WAL append and the hand-over to the storage worker take the parts).
 */
export function encodeBatchRecord(batch: AcceptedBatch): [head: Uint8Array, body: Uint8Array] {
  const header: RecordHeader = {
    project_id: batch.projectId,
    data_id: batch.dataId,
    environment: batch.environment,
    received_at: batch.receivedAt,
    locations: batch.locations,
    group_types: batch.groupTypes,
  };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const eventsStart = 1 + 4 + headerBytes.byteLength + 4;
  const bodyStart = eventsStart + batch.events.length * eventEntryBytes;
  const bytes = new Uint8Array(bodyStart);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, recordFormat);
  view.setUint32(1, headerBytes.byteLength, true);
  bytes.set(headerBytes, 5);
  view.setUint32(eventsStart - 4, batch.events.length, true);
  let offset = eventsStart;
  for (const event of batch.events) {
    view.setUint32(offset, event.index, true);
    view.setFloat64(offset + 4, event.timestamp, true);
    view.setFloat64(offset + 12, event.sampleRate, true);
    view.setUint8(offset + 20, event.isSuspect ? suspectFlag : 0);
    view.setUint32(offset + 21, event.personIndex, true);
    view.setUint16(offset + 25, event.location, true);
    offset += eventEntryBytes;
  }
  return [bytes, batch.body];
}

/** A record's parts: the project and request it came from, ingest's decisions, and the request's events as parsed. */
export interface BatchRecordView {
  header: RecordHeader;
  /** One per accepted event; `index` points into `batch`. */
  accepted: AcceptedEvent[];
  batch: Record<string, unknown>[];
  /** Size of the request's JSON text: about what its events take in column buffers. */
  bodyBytes: number;
}

/** Reads a record: its whole payload as read from the WAL, or the two parts encodeBatchRecord gave. */
export function readBatchRecord(payload: Uint8Array, separateBody?: Uint8Array): BatchRecordView {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const format = view.getUint8(0);
  if (format !== recordFormat && format !== recordFormatWithoutLocations) {
    throw new Error(`WAL record format ${format} is not known (expected ${recordFormat} or ${recordFormatWithoutLocations})`);
  }
  const withLocations = format === recordFormat;
  const entryBytes = withLocations ? eventEntryBytes : eventEntryBytesWithoutLocations;
  const headerLength = view.getUint32(1, true);
  const decoder = new TextDecoder();
  const parsedHeader = JSON.parse(decoder.decode(payload.subarray(5, 5 + headerLength))) as RecordHeader | HeaderWithoutLocations;
  const header: RecordHeader = "locations" in parsedHeader
    ? parsedHeader
    : { ...parsedHeader, locations: [parsedHeader.location] };
  const eventsStart = 5 + headerLength + 4;
  const count = view.getUint32(eventsStart - 4, true);
  const bodyStart = eventsStart + count * entryBytes;
  const body = separateBody ?? payload.subarray(bodyStart);
  const batch = (JSON.parse(decoder.decode(body)) as { batch: Record<string, unknown>[] }).batch;
  const accepted: AcceptedEvent[] = new Array(count);
  for (let i = 0, offset = eventsStart; i < count; i++, offset += entryBytes) {
    accepted[i] = {
      index: view.getUint32(offset, true),
      timestamp: view.getFloat64(offset + 4, true),
      sampleRate: view.getFloat64(offset + 12, true),
      isSuspect: (view.getUint8(offset + 20) & suspectFlag) !== 0,
      personIndex: view.getUint32(offset + 21, true),
      location: withLocations ? view.getUint16(offset + 25, true) : 0,
    };
  }
  return { header, accepted, batch, bodyBytes: body.byteLength };
}
