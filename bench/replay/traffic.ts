// POST /r bodies from seeded recordings, as bytes: each sender replays one recording after
// another under a fresh session id (UUIDv7, as our SDK makes them), a request holding the next
// `chunksPerRequest` chunks of its session in order. A chunk's JSON after its ids is encoded
// once per recording; a request only splices in its key, ids and time, so the driver takes little
// of the CPU the server it measures needs.
import type { SerializedNode } from "./page.ts";
import type { Recording } from "./recording.ts";

const encoder = new TextEncoder();

/** One chunk of a recording as JSON bytes, without its `{"session_id":…,"window_id":…` head. */
interface ChunkTail {
  bytes: Uint8Array;
}

/** Where one sender is: its session, and the next chunk of the recording it replays. */
interface SenderSession {
  tails: ChunkTail[];
  next: number;
  head: Uint8Array;
}

export interface ReplayRequest {
  /** The request body: `{"api_key", "sent_at", "chunks"}`. */
  body: Uint8Array;
  chunks: number;
}

export class ReplayTraffic {
  private readonly recordings: ChunkTail[][];
  private nextRecording = 0;
  private readonly senders = new Map<number, SenderSession>();
  /** Sessions begun so far (each recording replayed is one). */
  sessions = 0;

  constructor(recordings: Recording[]) {
    this.recordings = recordings.map((recording, at) =>
      recording.chunks.map((chunk) => ({
        bytes: encoder.encode(`,"seq":${chunk.seq},"distinct_id":"visitor-${at}","platform":"web","mode":"dom","events":${JSON.stringify(chunk.events)}}`),
      })),
    );
  }

  private session(): SenderSession {
    const tails = this.recordings[this.nextRecording++ % this.recordings.length]!;
    this.sessions++;
    const head = encoder.encode(`{"session_id":"${Bun.randomUUIDv7()}","window_id":"${Bun.randomUUIDv7()}"`);
    return { tails, next: 0, head };
  }

  /** Sender `sender`'s next request: up to `chunksPerRequest` chunks of its session (a new session once one ends). */
  request(sender: number, apiKey: string, chunksPerRequest: number): ReplayRequest {
    let session = this.senders.get(sender);
    if (!session || session.next >= session.tails.length) this.senders.set(sender, (session = this.session()));
    const tails = session.tails.slice(session.next, session.next + chunksPerRequest);
    session.next += tails.length;
    const open = encoder.encode(`{"api_key":"${apiKey}","sent_at":"${new Date().toISOString()}","chunks":[`);
    const parts: Uint8Array[] = [open];
    tails.forEach((tail, at) => parts.push(...(at > 0 ? [encoder.encode(",")] : []), session.head, tail.bytes));
    parts.push(encoder.encode("]}"));
    return { body: Buffer.concat(parts), chunks: tails.length };
  }
}

/** rrweb's EventType.FullSnapshot. */
const fullSnapshot = 2;

/** Nodes and elements of a serialized DOM tree. */
function countNodes(node: SerializedNode): { nodes: number; elements: number } {
  const count = { nodes: 1, elements: node.type === 2 ? 1 : 0 };
  for (const child of "childNodes" in node ? node.childNodes : []) {
    const below = countNodes(child);
    count.nodes += below.nodes;
    count.elements += below.elements;
  }
  return count;
}

export interface RecordingTotals {
  minutes: number;
  chunks: number;
  events: number;
  /** The chunks' events as JSON (what the SDK sends, before its envelope). */
  eventBytes: number;
  /** A FullSnapshot's JSON, on average. */
  snapshotBytes: number;
  /** The first visit's FullSnapshot: its nodes (text and whitespace included) and elements. */
  snapshotNodes: number;
  snapshotElements: number;
}

/** What a set of recordings holds. */
export function recordingTotals(recordings: Recording[]): RecordingTotals {
  let snapshots = 0;
  let snapshotBytes = 0;
  let minutes = 0;
  let chunks = 0;
  let events = 0;
  let eventBytes = 0;
  for (const recording of recordings) {
    minutes += recording.durationMs / 60_000;
    chunks += recording.chunks.length;
    events += recording.events.length;
    for (const chunk of recording.chunks) eventBytes += encoder.encode(JSON.stringify(chunk.events)).byteLength;
    for (const event of recording.events.filter((candidate) => candidate.type === fullSnapshot)) {
      snapshots++;
      snapshotBytes += encoder.encode(JSON.stringify(event)).byteLength;
    }
  }
  const firstSnapshot = recordings[0]!.events.find((event) => event.type === fullSnapshot)!;
  const tree = countNodes(firstSnapshot.data.node as SerializedNode);
  return { minutes, chunks, events, eventBytes, snapshotBytes: snapshotBytes / snapshots, snapshotNodes: tree.nodes, snapshotElements: tree.elements };
}
