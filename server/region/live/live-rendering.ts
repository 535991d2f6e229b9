// Turns recent events of one project into what GET /events/live sends: DTOs for the JSON
// answer and SSE messages for streams. One rendering serves one answer, or one ingest request's
// events for every stream watching them, so each event's person and each JSON text are worked
// out once however many streams receive it.
import type { PersonDirectory } from "../../../storage/person-directory.ts";
import { sseMessage } from "../../http/sse.ts";
import { maskProperties } from "../pii-mask.ts";
import { eventId } from "./live-event-id.ts";
import { liveEventDto, type LiveEventDto, type PropertyView } from "./live-event-dto.ts";
import type { RecentEvent } from "./recent-events.ts";

/** `backlog`: recent events sent on connect, newest first; `event`: events as they are accepted. */
export type LiveMessageKind = "backlog" | "event";

const unmasked: PropertyView = (properties) => properties;

/** What rendering reads of the person store: persons by index, and the catalog's personal-data properties. */
export type PersonLookup = Pick<PersonDirectory, "person" | "piiProperties">;

export class LiveRendering {
  private readonly personIds = new Map<number, string | null>();
  private maskedView: PropertyView | null = null;
  /** Messages by event, kind and view: every stream of the environment that shows an event sends the same bytes. */
  private readonly messages = new Map<string, Uint8Array>();

  constructor(
    private readonly directory: PersonLookup,
    readonly projectId: string,
    /** Prefix of event ids: the hub's, so ids from before a restart are told apart. */
    private readonly epoch: string,
  ) {}

  eventId(seq: number): string {
    return eventId(this.epoch, seq);
  }

  /** The person an ingest-time index stands for now (merges followed), or null when it is unknown. */
  private personId(index: number): string | null {
    let id = this.personIds.get(index);
    if (id === undefined) {
      let person = this.directory.person(this.projectId, index);
      while (person !== null && person.mergedInto !== null) person = this.directory.person(this.projectId, person.mergedInto);
      id = person?.id ?? null;
      this.personIds.set(index, id);
    }
    return id;
  }

  /** Personal data masked unless the token holds persons.pii (the persons routes' rule). */
  private view(pii: boolean): PropertyView {
    if (pii) return unmasked;
    if (this.maskedView === null) {
      const catalogPii = new Set(this.directory.piiProperties(this.projectId));
      this.maskedView = (properties) => maskProperties(properties, catalogPii);
    }
    return this.maskedView;
  }

  dto(event: RecentEvent, pii: boolean): LiveEventDto {
    return liveEventDto(event, this.personId(event.stored.personIndex), this.view(pii));
  }

  message(event: RecentEvent, kind: LiveMessageKind, pii: boolean): Uint8Array {
    const key = `${event.seq}/${kind}/${pii}`;
    let bytes = this.messages.get(key);
    if (bytes === undefined) {
      bytes = sseMessage({ id: this.eventId(event.seq), event: kind, data: JSON.stringify(this.dto(event, pii)) });
      this.messages.set(key, bytes);
    }
    return bytes;
  }
}
