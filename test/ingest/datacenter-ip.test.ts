// Datacenter address ranges (ingest decision: browser events from datacenter or cloud-hosting
// addresses are stored but marked `is_suspect`): the CIDR matcher at range edges, the ranges-file loader
// and DATACENTER_RANGES_FILE, and the rule end to end over HTTP behind a trusted proxy.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../server/config.ts";
import { DatacenterRanges, loadDatacenterRanges } from "../../server/ingest/datacenter-ip.ts";
import { nativeBody, nativeEvent, ok, postIngest, startDedicatedService, storedEvents, type NativeEvent } from "./helpers.ts";

const scratch = mkdtempSync(join(tmpdir(), "svc-datacenter-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a ranges file into the scratch directory and returns its path. */
function rangesFile(name: string, lines: string[]): string {
  const path = join(scratch, name);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** `contains` for each address, as one object (so a failure shows every answer). */
const lookups = (ranges: DatacenterRanges, ips: string[]) => Object.fromEntries(ips.map((ip) => [ip, ranges.contains(ip)]));

/** The error `run` throws, as {type, message}. */
function thrown(run: () => unknown): { type: string; message: string } {
  try {
    run();
  } catch (error) {
    return { type: (error as Error).constructor.name, message: (error as Error).message };
  }
  throw new Error("expected an error");
}

describe("matcher", () => {
  // Documentation ranges (RFC 5737, RFC 3849), so nothing here is anyone's real address.
  const ranges = DatacenterRanges.parse([
    "# provider A",
    "198.51.100.0/24",
    "",
    "203.0.113.128/25   # trailing comment",
    "192.0.2.77",
    "2001:db8:1::/48",
    "  2001:DB8:AB00::/40  ",
  ]);

  test("IPv4: first and last address of a block match, the ones just outside do not", () => {
    expect(lookups(ranges, [
      "198.51.99.255", "198.51.100.0", "198.51.100.137", "198.51.100.255", "198.51.101.0",
      "203.0.113.127", "203.0.113.128", "203.0.113.255", "203.0.114.0",
      "192.0.2.76", "192.0.2.77", "192.0.2.78",
    ])).toEqual({
      "198.51.99.255": false, "198.51.100.0": true, "198.51.100.137": true, "198.51.100.255": true, "198.51.101.0": false,
      "203.0.113.127": false, "203.0.113.128": true, "203.0.113.255": true, "203.0.114.0": false,
      "192.0.2.76": false, "192.0.2.77": true, "192.0.2.78": false,
    });
  });

  test("IPv6: block edges, written compressed, in full, or in capitals", () => {
    expect(lookups(ranges, [
      "2001:db8:0:ffff:ffff:ffff:ffff:ffff", "2001:db8:1::", "2001:db8:1::42", "2001:db8:1:ffff:ffff:ffff:ffff:ffff", "2001:db8:2::",
      "2001:0DB8:0001:0000:0000:0000:0000:0001", "2001:db8:aaff:ffff:ffff:ffff:ffff:ffff", "2001:db8:ab00::", "2001:db8:abff::1", "2001:db8:ac00::",
    ])).toEqual({
      "2001:db8:0:ffff:ffff:ffff:ffff:ffff": false, "2001:db8:1::": true, "2001:db8:1::42": true, "2001:db8:1:ffff:ffff:ffff:ffff:ffff": true, "2001:db8:2::": false,
      "2001:0DB8:0001:0000:0000:0000:0000:0001": true, "2001:db8:aaff:ffff:ffff:ffff:ffff:ffff": false, "2001:db8:ab00::": true, "2001:db8:abff::1": true, "2001:db8:ac00::": false,
    });
  });

  test("IPv4-mapped IPv6 addresses are looked up as IPv4", () => {
    expect(lookups(ranges, [
      "::ffff:198.51.100.7", "::FFFF:198.51.100.255", "::ffff:c633:6407", "0:0:0:0:0:ffff:198.51.100.0",
      "::ffff:198.51.101.0", "::198.51.100.7", "64:ff9b::198.51.100.7",
    ])).toEqual({
      "::ffff:198.51.100.7": true, "::FFFF:198.51.100.255": true, "::ffff:c633:6407": true, "0:0:0:0:0:ffff:198.51.100.0": true,
      "::ffff:198.51.101.0": false, "::198.51.100.7": false, "64:ff9b::198.51.100.7": false,
    });
  });

  test("malformed input is never a match", () => {
    const malformed = [
      "", " ", "garbage", "198.51.100", "198.51.100.7.1", "198.51.100.256", "198.51.100.-1", "0198.51.100.7",
      " 198.51.100.7", "198.51.100.7 ", "198.51.100.7:443", "198.51.100.0/24", "198.51..100",
      "2001:db8:1::1%eth0", "[2001:db8:1::1]", "2001:db8:1:::1", "2001:db8:1::1::2", ":2001:db8:1::1", "2001:db8:1::1:",
      "2001:db8:1:0:0:0:0:0:1", "2001:db8:1:0:0:0:1", "12345::", "2001:db8:1::g", "::ffff:198.51.100", "::ffff:198.51.100.7.1",
      "2001:db8:1:0:0:0:0:198.51.100.7", "x".repeat(100),
    ];
    expect(lookups(ranges, malformed)).toEqual(Object.fromEntries(malformed.map((ip) => [ip, false])));
  });

  test("overlapping and adjacent ranges merge; the ends of the address space are reachable", () => {
    const merged = DatacenterRanges.parse(["198.51.100.0/25", "198.51.100.64/26", "198.51.100.128/25", "2001:db8::/33", "2001:db8:8000::/33"]);
    expect(merged.size).toEqual({ ipv4: 1, ipv6: 1 });
    const everything = DatacenterRanges.parse(["0.0.0.0/0", "::/0", "::/1", "8000::/1"]);
    expect(everything.size).toEqual({ ipv4: 1, ipv6: 1 });
    expect(lookups(everything, ["0.0.0.0", "255.255.255.255", "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"])).toEqual({
      "0.0.0.0": true, "255.255.255.255": true, "::": true, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": true,
    });
    const empty = DatacenterRanges.parse(["# nothing but comments", ""]);
    expect([empty.size, lookups(empty, ["198.51.100.7", "2001:db8::1"])]).toEqual([
      { ipv4: 0, ipv6: 0 },
      { "198.51.100.7": false, "2001:db8::1": false },
    ]);
  });

  test("an IPv4 range written as IPv4-mapped IPv6 matches IPv4 addresses", () => {
    const mapped = DatacenterRanges.parse(["::ffff:198.51.100.0/120"]);
    expect([mapped.size, lookups(mapped, ["198.51.100.9", "::ffff:198.51.100.9", "198.51.101.9"])]).toEqual([
      { ipv4: 1, ipv6: 0 },
      { "198.51.100.9": true, "::ffff:198.51.100.9": true, "198.51.101.9": false },
    ]);
  });

  test("the bundled list parses and covers the big providers but not public resolvers or home ISPs", () => {
    const bundled = loadDatacenterRanges(null);
    expect(lookups(bundled, [
      "3.120.0.1", // AWS eu-central-1
      "34.120.0.1", // Google Cloud
      "20.50.0.1", // Azure
      "138.68.0.1", // DigitalOcean
      "5.9.0.1", // Hetzner
      "2600:1f18::1", // AWS IPv6
      "2a01:4f8::1", // Hetzner IPv6
      "8.8.8.8", // Google Public DNS
      "1.1.1.1", // Cloudflare DNS
      "81.2.69.142", // a UK broadband address
      "2003:e2::1", // Deutsche Telekom IPv6
    ])).toEqual({
      "3.120.0.1": true, "34.120.0.1": true, "20.50.0.1": true, "138.68.0.1": true, "5.9.0.1": true,
      "2600:1f18::1": true, "2a01:4f8::1": true,
      "8.8.8.8": false, "1.1.1.1": false, "81.2.69.142": false, "2003:e2::1": false,
    });
  });
});

describe("ranges file", () => {
  test("a line that is not a CIDR names the file and the line", () => {
    const cases = {
      word: ["198.51.100.0/24", "# comment", "not-a-cidr"],
      hostBits: ["198.51.100.1/24"],
      length: ["198.51.100.0/33"],
      v6HostBits: ["2001:db8::1/64"],
      v6Length: ["2001:db8::/129"],
      emptyLength: ["198.51.100.0/"],
    };
    const messages = Object.fromEntries(Object.entries(cases).map(([name, lines]) => [name, thrown(() => DatacenterRanges.parse(lines, "ranges.txt"))]));
    const error = (message: string) => ({ type: "DatacenterRangesError", message });
    expect(messages).toEqual({
      word: error('ranges.txt, line 3: "not-a-cidr" is not a CIDR (not an IPv4 or IPv6 address)'),
      hostBits: error('ranges.txt, line 1: "198.51.100.1/24" is not a CIDR (bits after the first 24 are set)'),
      length: error('ranges.txt, line 1: "198.51.100.0/33" is not a CIDR (the prefix length must be 0 to 32)'),
      v6HostBits: error('ranges.txt, line 1: "2001:db8::1/64" is not a CIDR (bits after the first 64 are set)'),
      v6Length: error('ranges.txt, line 1: "2001:db8::/129" is not a CIDR (the prefix length must be 0 to 128)'),
      emptyLength: error('ranges.txt, line 1: "198.51.100.0/" is not a CIDR (the prefix length must be 0 to 32)'),
    });
  });

  test("DATACENTER_RANGES_FILE: a bad line or a missing file is a configuration error naming the file", () => {
    const bad = rangesFile("bad.txt", ["# ours", "198.51.100.0/24", "198.51.100.0/24/1"]);
    const missing = join(scratch, "missing.txt");
    const env = { DATA_DIR: join(scratch, "data") };
    expect(thrown(() => loadConfig({ ...env, DATACENTER_RANGES_FILE: bad }))).toEqual({
      type: "ConfigError",
      message: `DATACENTER_RANGES_FILE: ${bad}, line 3: "198.51.100.0/24/1" is not a CIDR (the prefix length must be 0 to 32)`,
    });
    const noFile = thrown(() => loadConfig({ ...env, DATACENTER_RANGES_FILE: missing }));
    expect([noFile.type, noFile.message.startsWith(`DATACENTER_RANGES_FILE: cannot read ${missing}: `)]).toEqual(["ConfigError", true]);
  });

  test("DATACENTER_RANGES_FILE replaces the bundled list", () => {
    const own = rangesFile("own.txt", ["198.51.100.0/24", "2001:db8:1::/48"]);
    const ranges = loadConfig({ DATA_DIR: join(scratch, "data"), DATACENTER_RANGES_FILE: own }).datacenterRanges;
    expect([ranges.size, lookups(ranges, ["198.51.100.7", "2001:db8:1::7", "3.120.0.1"])]).toEqual([
      { ipv4: 1, ipv6: 1 },
      { "198.51.100.7": true, "2001:db8:1::7": true, "3.120.0.1": false },
    ]);
  });

  test("a bad DATACENTER_RANGES_FILE stops start-up with a clear message and exit code 2", async () => {
    const bad = rangesFile("bad-start.txt", ["198.51.100.0/24", "", "300.1.2.0/24"]);
    const child = Bun.spawn([process.execPath, "server/main.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: join(scratch, "start"), DATACENTER_RANGES_FILE: bad },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect([await child.exited, await new Response(child.stderr).text()]).toEqual([
      2,
      `configuration error: DATACENTER_RANGES_FILE: ${bad}, line 3: "300.1.2.0/24" is not a CIDR (not an IPv4 or IPv6 address)\n`,
    ]);
  });
});

const browserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

describe("ingest marks browser events from datacenter addresses suspect (behind a trusted proxy)", () => {
  /**
   * Posts one event per client address (from a browser unless the client names its own user
   * agent, or gives the event's own `$ip`) and returns [uuid, is_suspect] of what was stored, in order.
   */
  async function ingestFrom(
    env: Record<string, string>, clients: (string | { address: string; userAgent?: string; ownIp?: string })[],
  ): Promise<{ sent: NativeEvent[]; stored: [string, boolean][] }> {
    const dedicated = await startDedicatedService({ TRUST_PROXY: "true", ...env });
    try {
      const sent: NativeEvent[] = [];
      for (const client of clients) {
        const { address, userAgent = browserAgent, ownIp } = typeof client === "string" ? { address: client } : client;
        const event = nativeEvent({ properties: ownIp ? { $ip: ownIp } : {} });
        sent.push(event);
        const reply = await postIngest(dedicated.service.url, nativeBody(dedicated.key, [event]), {
          headers: { "x-forwarded-for": address, "user-agent": userAgent },
        });
        expect([reply.status, reply.body]).toEqual([200, ok(1)]);
      }
      const stored = storedEvents(await dedicated.stopAndReadWal(), dedicated.project.id);
      return { sent, stored: stored.map((event): [string, boolean] => [event.uuid, event.is_suspect]) };
    } finally {
      await dedicated.dispose();
    }
  }

  test("bundled list: an AWS address and a Hetzner IPv6 address are suspect, a broadband address is not", async () => {
    const { sent, stored } = await ingestFrom({}, ["3.120.0.1", "81.2.69.142", "2a01:4f8::1", "::ffff:81.2.69.142"]);
    expect(stored).toEqual([
      [sent[0]!.uuid, true],
      [sent[1]!.uuid, false],
      [sent[2]!.uuid, true],
      [sent[3]!.uuid, false],
    ]);
  });

  test("a server library's events from a datacenter are not suspect; an event's own $ip decides where it came from", async () => {
    const { sent, stored } = await ingestFrom({}, [
      { address: "3.120.0.1", userAgent: "posthog-node/5.1.0" },
      { address: "3.120.0.1", userAgent: "test-sdk/1.2.3" },
      // A server in the cloud forwarding a browser's address and agent: located and judged by them.
      { address: "3.120.0.1", ownIp: "81.2.69.142" },
      { address: "81.2.69.142", ownIp: "3.120.0.1" },
      { address: "81.2.69.142", ownIp: "3.120.0.1", userAgent: "posthog-python/3.7.0" },
    ]);
    expect(stored).toEqual([
      [sent[0]!.uuid, false],
      [sent[1]!.uuid, false],
      [sent[2]!.uuid, false],
      [sent[3]!.uuid, true],
      [sent[4]!.uuid, false],
    ]);
  });

  test("DATACENTER_RANGES_FILE: only its ranges count (the bundled list no longer applies)", async () => {
    const own = rangesFile("ingest.txt", ["# our hosting provider", "198.51.100.0/24"]);
    const { sent, stored } = await ingestFrom({ DATACENTER_RANGES_FILE: own }, ["198.51.100.7", "3.120.0.1", "81.2.69.142"]);
    expect(stored).toEqual([
      [sent[0]!.uuid, true],
      [sent[1]!.uuid, false],
      [sent[2]!.uuid, false],
    ]);
  });
});
