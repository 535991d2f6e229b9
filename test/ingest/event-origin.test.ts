// Where a request's events came from (server/ingest/event-origin.ts): an event's own `$ip`
// wins over the request's address, each address is looked up once, and an event with
// `$geoip_disable` is not looked up at all (its address still decides the datacenter check).
import { describe, expect, test } from "bun:test";
import { loadDatacenterRanges } from "../../server/ingest/datacenter-ip.ts";
import { EventOrigins } from "../../server/ingest/event-origin.ts";
import { noLocation } from "../../storage/event-record.ts";

const ranges = loadDatacenterRanges(null);
const stAlbans = { country: "GB", region: "ENG", city: "St Albans", timezone: "Europe/London" };
const syracuse = { country: "US", region: "NY", city: "Syracuse", timezone: "America/New_York" };
const frankfurt = { country: "DE", region: "HE", city: "Frankfurt am Main", timezone: "Europe/Berlin" };

describe("event origins", () => {
  test("own $ip first, else the request's address; each location once, in the order events need them", () => {
    const origins = new EventOrigins("81.2.69.142", ranges);
    const events = [
      { $ip: "24.24.24.24" },
      {},
      { $ip: "24.24.24.24" },
      // The request's own address, and values that are not addresses, are the request's origin.
      { $ip: "81.2.69.142" },
      { $ip: "not-an-address" },
      { $ip: 42 },
      { $ip: "3.120.0.1" },
      { $ip: "10.1.2.3" },
    ];
    expect(events.map((properties) => origins.of(properties))).toEqual([
      { location: 0, datacenter: false },
      { location: 1, datacenter: false },
      { location: 0, datacenter: false },
      { location: 1, datacenter: false },
      { location: 1, datacenter: false },
      { location: 1, datacenter: false },
      { location: 2, datacenter: true },
      { location: 3, datacenter: false },
    ]);
    expect(origins.locations).toEqual([syracuse, stAlbans, frankfurt, noLocation]);
  });

  test("$geoip_disable: no lookup, one empty location for all such events; the address still decides the datacenter check", () => {
    const origins = new EventOrigins("3.120.0.1", ranges);
    expect([
      origins.of({ $geoip_disable: true }),
      origins.of({ $ip: "81.2.69.142", $geoip_disable: true }),
      origins.of({ $ip: "3.120.0.2", $geoip_disable: true }),
    ]).toEqual([
      { location: 0, datacenter: true },
      { location: 0, datacenter: false },
      { location: 0, datacenter: true },
    ]);
    // Neither the request's address nor the events' were located.
    expect(origins.locations).toEqual([noLocation]);
  });

  test("a request without a client address: events without $ip have no location and are not from a datacenter", () => {
    const origins = new EventOrigins(null, ranges);
    expect([origins.of({}), origins.of({ $ip: "81.2.69.142" })]).toEqual([{ location: 0, datacenter: false }, { location: 1, datacenter: false }]);
    expect(origins.locations).toEqual([noLocation, stAlbans]);
  });
});
