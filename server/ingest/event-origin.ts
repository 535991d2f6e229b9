// Where each event of a request came from, for its location and the datacenter check. An
// event's own `$ip` wins over the request's client address: server libraries (PostHog's,
// Segment's) post on behalf of their users from the server's own address, and forward each
// user's address as `$ip` (Segment's `context.ip`, mapped to it) so that events are located
// where the user is. A `$ip` that is not an IP address is ignored. Either way the address is
// never stored (wal-body.ts).
import { isIP } from "node:net";
import { ipProperty, type Location } from "../../storage/event-record.ts";
import type { DatacenterRanges } from "./datacenter-ip.ts";
import { locate } from "./event-effects.ts";

export interface EventOrigin {
  /** Index of the event's location in EventOrigins.locations (and in its WAL record's). */
  location: number;
  /** The address is in a datacenter or cloud-hosting range. */
  datacenter: boolean;
}

/** The origins of one request's events: each distinct address is looked up once. */
export class EventOrigins {
  /** The request's client address's location first, then one per other address an event gave. */
  readonly locations: Location[];
  private readonly requestOrigin: EventOrigin;
  private byAddress: Map<string, EventOrigin> | null = null;

  constructor(private readonly requestIp: string | null, private readonly datacenterRanges: DatacenterRanges) {
    this.locations = [locate(requestIp)];
    this.requestOrigin = { location: 0, datacenter: requestIp !== null && datacenterRanges.contains(requestIp) };
  }

  /** The origin of an event with these (validated) properties. */
  of(properties: Record<string, unknown>): EventOrigin {
    const own = properties[ipProperty];
    if (typeof own !== "string" || own === this.requestIp || isIP(own) === 0) return this.requestOrigin;
    const known = (this.byAddress ??= new Map()).get(own);
    if (known) return known;
    const origin = { location: this.locations.push(locate(own)) - 1, datacenter: this.datacenterRanges.contains(own) };
    this.byAddress.set(own, origin);
    return origin;
  }
}
