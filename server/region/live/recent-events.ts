// The last events accepted in one project environment, for GET /events/live: what a new
// stream is sent first, what the JSON answer lists, and what a reconnecting stream missed.
// Every accepted event passes through here on the ingest path whether or not anyone watches,
// so a push only stores references the request already made (no allocation per event), into
// slots allocated once per environment. Events are numbered 1, 2, 3, ... per environment in
// acceptance order; event `seq` sits in slot `seq % capacity`.
import type { AcceptedEvent, Location } from "../../../storage/event-record.ts";
import type { ValidEvent } from "../../ingest/validate-event.ts";

/** Events kept per project environment (the "last 100" on connect). */
export const recentEventsMax = 100;
/**
 * Bytes of request JSON the kept events may stand for, per project environment: events of up
 * to 900 KiB each would otherwise keep 90 MB alive per environment. An event's share is its
 * request's size over its event count (measuring each event would cost the ingest path a
 * serialisation), so a request's events count fully once all of them are kept.
 */
export const recentEventBytesMax = 8 * 1024 * 1024;

/** One kept event, as the live routes read it. */
export interface RecentEvent {
  /** Its number in the environment's acceptance order (1 for the first since the process started). */
  seq: number;
  event: ValidEvent;
  /** What ingest decided about it (corrected timestamp, sample rate, suspect mark, person index). */
  stored: AcceptedEvent;
  location: Location;
  /** Epoch ms when the region received its request. */
  receivedAt: number;
}

export class RecentEvents {
  private readonly events: (ValidEvent | undefined)[];
  private readonly stored: (AcceptedEvent | undefined)[];
  private readonly locations: (Location | undefined)[];
  private readonly receivedAt: Float64Array;
  private readonly bytes: Float64Array;
  private keptBytes = 0;
  /** The newest event's number (0: none yet). */
  private newest = 0;
  /** The oldest kept event's number (newest + 1 when none is kept). */
  private oldest = 1;

  constructor(private readonly capacity = recentEventsMax, private readonly bytesMax = recentEventBytesMax) {
    this.events = new Array(capacity);
    this.stored = new Array(capacity);
    this.locations = new Array(capacity);
    this.receivedAt = new Float64Array(capacity);
    this.bytes = new Float64Array(capacity);
  }

  /** The number of the newest event accepted (kept or not); 0 before the first. */
  get lastSeq(): number {
    return this.newest;
  }

  /** The number of the oldest event still kept; lastSeq + 1 when none is. */
  get firstSeq(): number {
    return this.oldest;
  }

  /** Keeps an accepted event (dropping the oldest past either bound) and returns its number. */
  push(event: ValidEvent, stored: AcceptedEvent, location: Location, receivedAt: number, bytes: number): number {
    const seq = ++this.newest;
    if (seq - this.oldest >= this.capacity) this.dropOldest();
    const slot = seq % this.capacity;
    this.events[slot] = event;
    this.stored[slot] = stored;
    this.locations[slot] = location;
    this.receivedAt[slot] = receivedAt;
    this.bytes[slot] = bytes;
    this.keptBytes += bytes;
    // The newest event stays whatever its size: a stream must always be able to show the latest.
    while (this.keptBytes > this.bytesMax && this.oldest < seq) this.dropOldest();
    return seq;
  }

  private dropOldest(): void {
    const slot = this.oldest % this.capacity;
    this.keptBytes -= this.bytes[slot]!;
    // Released so the request's objects can be collected.
    this.events[slot] = undefined;
    this.stored[slot] = undefined;
    this.locations[slot] = undefined;
    this.oldest++;
  }

  /** Event `seq` if it is still kept (and was not erased), else null. */
  at(seq: number): RecentEvent | null {
    if (seq < this.oldest || seq > this.newest) return null;
    const slot = seq % this.capacity;
    if (this.events[slot] === undefined) return null;
    return { seq, event: this.events[slot]!, stored: this.stored[slot]!, location: this.locations[slot]!, receivedAt: this.receivedAt[slot]! };
  }

  /** Lets go of the kept events `erased` picks (an erasure); their numbers stay used. Returns how many. */
  forget(erased: (event: ValidEvent, stored: AcceptedEvent) => boolean): number {
    let forgotten = 0;
    for (let seq = this.oldest; seq <= this.newest; seq++) {
      const slot = seq % this.capacity;
      const event = this.events[slot];
      if (event === undefined || !erased(event, this.stored[slot]!)) continue;
      this.keptBytes -= this.bytes[slot]!;
      this.bytes[slot] = 0;
      this.events[slot] = undefined;
      this.stored[slot] = undefined;
      this.locations[slot] = undefined;
      forgotten++;
    }
    return forgotten;
  }
}
