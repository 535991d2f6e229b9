import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createMailDnsResolver, lookupMailHosts, mxHostsTriedMax, type MailDnsResolver } from "../../../server/mail/delivery/mx.ts";
import { TestDnsServer } from "../helpers/dns-server.ts";

let dnsServer: TestDnsServer;
let resolver: MailDnsResolver;

beforeAll(async () => {
  dnsServer = await TestDnsServer.start();
  resolver = createMailDnsResolver(dnsServer.servers);
});
afterAll(() => dnsServer.close());
beforeEach(() => dnsServer.clear());

describe("lookupMailHosts", () => {
  test("MX hosts come in preference order, each with its IPv4 and IPv6 addresses", async () => {
    dnsServer.set("example.test", {
      MX: [
        { exchange: "backup.example.test", priority: 20 },
        { exchange: "primary.example.test", priority: 10 },
      ],
    });
    dnsServer.set("primary.example.test", { A: ["127.0.0.2"], AAAA: ["::1"] });
    dnsServer.set("backup.example.test", { A: ["127.0.0.3"] });
    expect(await lookupMailHosts("example.test", resolver)).toEqual({
      ok: true,
      hosts: [
        { hostName: "primary.example.test", preference: 10, addresses: ["127.0.0.2", "::1"], implicit: false },
        { hostName: "backup.example.test", preference: 20, addresses: ["127.0.0.3"], implicit: false },
      ],
    });
  });

  test("hosts of equal preference are ordered at random (RFC 5321 section 5.1)", async () => {
    dnsServer.set("tie.test", {
      MX: [
        { exchange: "a.tie.test", priority: 10 },
        { exchange: "b.tie.test", priority: 10 },
      ],
    });
    dnsServer.set("a.tie.test", { A: ["127.0.0.2"] });
    dnsServer.set("b.tie.test", { A: ["127.0.0.3"] });
    const order = async (draws: number[]) => {
      const lookup = await lookupMailHosts("tie.test", resolver, () => draws.shift() ?? 0);
      return lookup.ok ? lookup.hosts.map((host) => host.hostName) : lookup;
    };
    expect(await order([0.9, 0.1])).toEqual(["b.tie.test", "a.tie.test"]);
    expect(await order([0.1, 0.9])).toEqual(["a.tie.test", "b.tie.test"]);
  });

  test(`only the ${mxHostsTriedMax} most preferred MX hosts are looked up`, async () => {
    const count = mxHostsTriedMax + 3;
    dnsServer.set("many.test", { MX: Array.from({ length: count }, (_, i) => ({ exchange: `mx${i}.many.test`, priority: i })) });
    for (let i = 0; i < count; i++) dnsServer.set(`mx${i}.many.test`, { A: [`127.0.1.${i}`] });
    const lookup = await lookupMailHosts("many.test", resolver);
    expect(lookup.ok && lookup.hosts.map((host) => host.hostName)).toEqual(Array.from({ length: mxHostsTriedMax }, (_, i) => `mx${i}.many.test`));
    const asked = new Set(dnsServer.queries.map((query) => query.name));
    expect(Array.from({ length: count }, (_, i) => asked.has(`mx${i}.many.test`))).toEqual(Array.from({ length: count }, (_, i) => i < mxHostsTriedMax));
  });

  test("a domain without MX records is its own mail host (RFC 5321 section 5.1)", async () => {
    dnsServer.set("no-mx.test", { A: ["127.0.0.4"] });
    expect(await lookupMailHosts("no-mx.test", resolver)).toEqual({
      ok: true,
      hosts: [{ hostName: "no-mx.test", preference: 0, addresses: ["127.0.0.4"], implicit: true }],
    });
  });

  test("a null MX means the domain accepts no mail (RFC 7505), and no address is looked up", async () => {
    dnsServer.set("null.test", { MX: [{ exchange: "", priority: 0 }], A: ["127.0.0.5"] });
    expect(await lookupMailHosts("null.test", resolver)).toEqual({
      ok: false,
      failure: "null_mx",
      permanent: true,
      text: "null.test accepts no mail (null MX, RFC 7505)",
    });
    expect(dnsServer.queries).toEqual([{ name: "null.test", type: "MX" }]);
  });

  test("a null MX next to real MX records is skipped", async () => {
    dnsServer.set("mixed.test", {
      MX: [
        { exchange: "", priority: 0 },
        { exchange: "mx.mixed.test", priority: 10 },
      ],
    });
    dnsServer.set("mx.mixed.test", { A: ["127.0.0.6"] });
    expect(await lookupMailHosts("mixed.test", resolver)).toEqual({
      ok: true,
      hosts: [{ hostName: "mx.mixed.test", preference: 10, addresses: ["127.0.0.6"], implicit: false }],
    });
  });

  test("NXDOMAIN: the domain is not found, permanently", async () => {
    expect(await lookupMailHosts("nowhere.test", resolver)).toEqual({
      ok: false,
      failure: "domain_not_found",
      permanent: true,
      text: "nowhere.test has no MX, A or AAAA record",
    });
  });

  test("a domain with records but neither MX nor addresses has no mail host, permanently", async () => {
    dnsServer.set("text-only.test", { TXT: ["v=spf1 -all"] });
    expect(await lookupMailHosts("text-only.test", resolver)).toEqual({
      ok: false,
      failure: "domain_not_found",
      permanent: true,
      text: "text-only.test has no MX, A or AAAA record",
    });
  });

  test("SERVFAIL on the MX question is temporary", async () => {
    dnsServer.fail("broken.test", "SERVFAIL");
    expect(await lookupMailHosts("broken.test", resolver)).toEqual({
      ok: false,
      failure: "dns_temporary_failure",
      permanent: false,
      text: "DNS lookup of the MX records of broken.test failed: ESERVFAIL",
    });
  });

  test("a DNS server that never answers is a temporary failure", async () => {
    dnsServer.fail("silent.test", "no-answer");
    expect(await lookupMailHosts("silent.test", resolver)).toEqual({
      ok: false,
      failure: "dns_temporary_failure",
      permanent: false,
      text: "DNS lookup of the MX records of silent.test failed: ETIMEOUT",
    });
  });

  test("MX host names that are not host names are skipped", async () => {
    dnsServer.set("odd.test", {
      MX: [
        { exchange: "-bad-.odd.test", priority: 5 },
        { exchange: "mx.odd.test", priority: 10 },
      ],
    });
    dnsServer.set("mx.odd.test", { A: ["127.0.0.8"] });
    expect(await lookupMailHosts("odd.test", resolver)).toEqual({
      ok: true,
      hosts: [{ hostName: "mx.odd.test", preference: 10, addresses: ["127.0.0.8"], implicit: false }],
    });
  });

  test("MX hosts that do not exist leave no host to deliver to, permanently", async () => {
    dnsServer.set("dangling.test", { MX: [{ exchange: "gone.dangling.test", priority: 10 }] });
    expect(await lookupMailHosts("dangling.test", resolver)).toEqual({
      ok: false,
      failure: "mx_hosts_not_found",
      permanent: true,
      text: "no MX host of dangling.test has an address (gone.dangling.test)",
    });
  });

  test("an MX host whose address lookup fails is a temporary failure, but a working MX host is still used", async () => {
    dnsServer.set("flaky.test", {
      MX: [
        { exchange: "down.flaky.test", priority: 10 },
        { exchange: "up.flaky.test", priority: 20 },
      ],
    });
    dnsServer.fail("down.flaky.test", "SERVFAIL");
    dnsServer.set("up.flaky.test", { A: ["127.0.0.7"] });
    expect(await lookupMailHosts("flaky.test", resolver)).toEqual({
      ok: true,
      hosts: [{ hostName: "up.flaky.test", preference: 20, addresses: ["127.0.0.7"], implicit: false }],
    });
    dnsServer.set("up.flaky.test", {});
    // a new resolver, since Bun's keeps answers it has had
    expect(await lookupMailHosts("flaky.test", createMailDnsResolver(dnsServer.servers))).toEqual({
      ok: false,
      failure: "dns_temporary_failure",
      permanent: false,
      text: "DNS lookup of the MX hosts of flaky.test failed: ESERVFAIL",
    });
  });

  test("a hostile domain name is refused without a DNS question", async () => {
    const lookup = await lookupMailHosts("a..b\r\nRCPT TO:<x@y>", resolver);
    expect(lookup).toEqual({
      ok: false,
      failure: "domain_not_found",
      permanent: true,
      text: `${JSON.stringify("a..b\r\nRCPT TO:<x@y>")} is not a valid domain name`,
    });
    expect(dnsServer.queries).toEqual([]);
  });
});

describe("the test DNS server", () => {
  test("a TXT record longer than 255 bytes goes out as several strings and comes back whole, over TCP when UDP truncates it", async () => {
    const long = `v=DKIM1; k=rsa; p=${"A".repeat(1_000)}`;
    dnsServer.set("s1._domainkey.sender.test", { TXT: [long, "second record"] });
    expect(await dnsServer.resolve("s1._domainkey.sender.test", "TXT")).toEqual([
      [long.slice(0, 255), long.slice(255, 510), long.slice(510, 765), long.slice(765)],
      ["second record"],
    ]);
    // the UDP answer was truncated (over 512 bytes), so the question came again over TCP
    expect(dnsServer.queries).toEqual([
      { name: "s1._domainkey.sender.test", type: "TXT" },
      { name: "s1._domainkey.sender.test", type: "TXT" },
    ]);
  });

  test("its resolve function reports NXDOMAIN and NODATA as node's resolver does", async () => {
    dnsServer.set("exists.test", { A: ["127.0.0.9"] });
    const outcome = (name: string, type: string) =>
      dnsServer.resolve(name, type).then(
        (answer) => answer,
        (error: { code?: string }) => error.code,
      );
    expect(await Promise.all([outcome("exists.test", "A"), outcome("exists.test", "TXT"), outcome("missing.test", "TXT")])).toEqual([["127.0.0.9"], "ENODATA", "ENOTFOUND"]);
  });
});
