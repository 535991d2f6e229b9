// Where each event of a request came from, for its location and the datacenter check. An
// event's own `$ip` wins over the request's client address: server libraries (PostHog's,
// Segment's) post on behalf of their users from the server's own address, and forward each
// user's address as `$ip` (Segment's `context.ip`, mapped to it) so that events are located
// where the user is. A `$ip` that is not an IP address is ignored. Either way the address is
// never stored (wal-body.ts), and an event with `$geoip_disable` is not looked up at all.
import { isIP } from "node:net";
import { noLocation, type Location } from "../../storage/event-record.ts";
import { ipProperty } from "../../storage/ip-property.ts";
import type { DatacenterRanges } from "./datacenter-ip.ts";
import { locate } from "./event-effects.ts";

export interface EventOrigin {
  /** Index of the event's location in EventOrigins.locations (and in its WAL record's). */
  location: number;
  /** The address is in a datacenter or cloud-hosting range. */
  datacenter: boolean;
}

/**
 * The origins of one request's events. Each distinct address is looked up once, and only when
 * an event needs it, so the locations (logged with the events) are only those of stored events
 * that asked to be located.
 */
export class EventOrigins {
  readonly locations: Location[] = [];
  private requestOrigin: EventOrigin | null = null;
  private byAddress: Map<string, EventOrigin> | null = null;
  private unlocatedSlot: number | null = null;

  constructor(private readonly requestIp: string | null, private readonly datacenterRanges: DatacenterRanges) {}

  /** The origin of an event with these (validated) properties. */
  of(properties: Record<string, unknown>): EventOrigin {
    const own = properties[ipProperty];
    const address = typeof own === "string" && own !== this.requestIp && isIP(own) !== 0 ? own : null;
    if (properties.$geoip_disable === true) {
      return { location: (this.unlocatedSlot ??= this.locations.push(noLocation) - 1), datacenter: this.inDatacenter(address ?? this.requestIp) };
    }
    if (address === null) return (this.requestOrigin ??= this.locate(this.requestIp));
    const known = (this.byAddress ??= new Map()).get(address);
    if (known) return known;
    const origin = this.locate(address);
    this.byAddress.set(address, origin);
    return origin;
  }

  private locate(address: string | null): EventOrigin {
    return { location: this.locations.push(locate(address)) - 1, datacenter: this.inDatacenter(address) };
  }

  private inDatacenter(address: string | null): boolean {
    return address !== null && this.datacenterRanges.contains(address);
  }
}
