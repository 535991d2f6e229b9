// The simulated network's session lifecycle through the gateway's adapter and the gateway's
// real store: pairing by scan, resuming with the stored credential after a restart, codes that
// rotate, a session replaced by another connection, logouts from either side, a dropped
// connection, and a network that cannot be reached.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import { SimulatedNetwork, startSimulatedNetwork } from "../../../server/gateway/network/simulated/index.ts";
import { openGatewayDatabase } from "../../../server/gateway/store/database.ts";
import { SqlAuthStateStore } from "../../../server/gateway/store/auth-state.ts";
import { EventLog, openSession, pairedSession, startHarness, storedAuth, type Harness } from "./simulated-harness.ts";

const phone = "+4915112345678";
const credentialPattern = /^sim-cred:[0-9a-f-]{36}$/;
const codePattern = /^sim-pair:[0-9a-f-]{36}$/;
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("pairing", () => {
  test("a session without a credential shows a code; the phone scans it: the credential is stored before paired, then connected", async () => {
    const log = new EventLog();
    let storedWhenPaired: Promise<Record<string, string>> | null = null;
    log.onPaired = () => (storedWhenPaired = storedAuth(harness.database, "inst-1"));
    const { adapter, session } = await openSession(harness, "inst-1", log);
    const [shown] = await log.count("qr", 1);
    expect(shown!.code).toMatch(codePattern);
    expect(await harness.control.devices()).toEqual([]);

    expect(await harness.control.scan(phone, shown!.code)).toEqual({ phone });
    await log.count("connected", 1);
    expect(log.entries).toEqual([{ kind: "qr", code: shown!.code }, { kind: "paired", phone }, { kind: "connected" }]);
    const stored = await storedAuth(harness.database, "inst-1");
    expect(stored).toEqual({ "sim.credential": expect.stringMatching(credentialPattern), "sim.phone": phone });
    expect(await storedWhenPaired!).toEqual(stored);
    expect(await harness.control.devices()).toEqual([{ phone, connected: true, sessions: 1 }]);
    expect(await session.send("+33612345678", { type: "text", text: "hello" }, "m-1")).toEqual({ ok: true, duplicate: false });
    await adapter.close();
  });

  test("after a restart (new adapter, new store on the same file) the stored credential reconnects without a scan; close() keeps it and reports nothing", async () => {
    const first = await pairedSession(harness, "inst-1", phone);
    await first.session.close();
    expect(first.log.of("disconnected")).toEqual([]);
    expect(await harness.control.devices()).toEqual([{ phone, connected: false, sessions: 0 }]);
    const credential = (await storedAuth(harness.database, "inst-1"))["sim.credential"];

    await harness.database.close();
    harness.database = await openGatewayDatabase(`${harness.directory}/g.sqlite`);
    const second = await openSession(harness, "inst-1");
    await second.log.count("connected", 1);
    expect(second.log.entries).toEqual([{ kind: "connected" }]);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({ "sim.credential": credential!, "sim.phone": phone });
    expect(await second.session.send("+33612345678", { type: "text", text: "back" }, "m-2")).toEqual({ ok: true, duplicate: false });
    expect(await harness.control.devices()).toEqual([{ phone, connected: true, sessions: 1 }]);
    await second.adapter.close();
  });

  test("codes rotate: each new code is shown and the one it replaced answers 410", async () => {
    const rotating = await startSimulatedNetwork({ qrRotateIntervalMs: 30 });
    const log = new EventLog();
    const adapter = new SimulatedNetwork(rotating.url);
    await adapter.open({ instanceId: "inst-r", auth: new SqlAuthStateStore(harness.database.sql, "inst-r"), events: log });
    const codes = (await log.count("qr", 3)).map((entry) => entry.code);
    expect(new Set(codes).size).toBe(3);
    for (const code of codes) expect(code).toMatch(codePattern);
    const scan = (code: string) => fetch(`${rotating.url}/phones/${encodeURIComponent(phone)}/scan`, { method: "POST", body: JSON.stringify({ code }) });
    const expired = await scan(codes[0]!);
    expect({ status: expired.status, body: await expired.json() }).toEqual({
      status: 410, body: { error: { code: "code_expired", message: "this pairing code expired (rotated, or its session closed); scan the current one" } },
    });
    await adapter.close();
    await rotating.close();
  });

  test("a used code answers 409 and the code of a closed session 410", async () => {
    const first = await pairedSession(harness, "inst-1", phone);
    const used = first.log.of("qr")[0]!.code;
    await expect(harness.control.scan("+4915199999999", used)).rejects.toMatchObject({ status: 409, code: "code_used" });
    const second = await openSession(harness, "inst-2");
    const [shown] = await second.log.count("qr", 1);
    await second.session.close();
    await expect(harness.control.scan("+4915199999999", shown!.code)).rejects.toMatchObject({ status: 410, code: "code_expired" });
    await first.adapter.close();
  });

  test("a phone that scans again links a new device: the old one is logged out", async () => {
    const first = await pairedSession(harness, "inst-1", phone);
    const second = await pairedSession(harness, "inst-2", phone);
    await first.log.count("disconnected", 1);
    expect(first.log.of("disconnected")).toEqual([{ kind: "disconnected", reason: { kind: "logged_out", message: "the phone linked another device" } }]);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
    expect(await harness.control.devices()).toEqual([{ phone, connected: true, sessions: 1 }]);
    await second.adapter.close();
  });
});

describe("an open session ends", () => {
  test("a second connection with the same credential replaces the first, which reports replaced and keeps its auth", async () => {
    const first = await pairedSession(harness, "inst-1", phone);
    const second = await openSession(harness, "inst-1");
    await second.log.count("connected", 1);
    await first.log.count("disconnected", 1);
    expect(first.log.entries.slice(3)).toEqual([{ kind: "disconnected", reason: { kind: "replaced", message: "another connection opened with this credential" } }]);
    expect(await first.session.send("+33612345678", { type: "text", text: "x" }, "m-1")).toEqual({ ok: false, transient: true, reason: "not connected to the simulated network" });
    expect(await storedAuth(harness.database, "inst-1")).toEqual({ "sim.credential": expect.stringMatching(credentialPattern), "sim.phone": phone });
    expect(await harness.control.devices()).toEqual([{ phone, connected: true, sessions: 1 }]);
    await second.adapter.close();
  });

  test("the phone logs the device out: logged_out, auth cleared, and the old credential is answered logged out", async () => {
    const { log } = await pairedSession(harness, "inst-1", phone);
    const credential = (await storedAuth(harness.database, "inst-1"))["sim.credential"]!;
    expect(await harness.control.logout(phone)).toEqual({ phone, loggedOut: true });
    await log.count("disconnected", 1);
    expect(log.of("disconnected")).toEqual([{ kind: "disconnected", reason: { kind: "logged_out", message: "the phone logged this device out" } }]);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
    expect(await harness.control.devices()).toEqual([]);

    // A replica holding the old credential is told the same.
    await new SqlAuthStateStore(harness.database.sql, "inst-1").write(new Map([["sim.credential", credential]]));
    const stale = await openSession(harness, "inst-1");
    await stale.log.count("disconnected", 1);
    expect(stale.log.entries).toEqual([{ kind: "disconnected", reason: { kind: "logged_out", message: "the phone logged this device out" } }]);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
  });

  test("a credential the network does not know (it restarted) is answered logged out", async () => {
    await new SqlAuthStateStore(harness.database.sql, "inst-1").write(new Map([["sim.credential", "sim-cred:forgotten"]]));
    const { log } = await openSession(harness, "inst-1");
    await log.count("disconnected", 1);
    expect(log.entries).toEqual([{ kind: "disconnected", reason: { kind: "logged_out", message: "unknown credential (the simulated network forgets devices when it restarts)" } }]);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
  });

  test("logout from the gateway voids the credential and clears auth, with no further event", async () => {
    const { session, log } = await pairedSession(harness, "inst-1", phone);
    const credential = (await storedAuth(harness.database, "inst-1"))["sim.credential"]!;
    await session.logout();
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
    expect(await harness.control.devices()).toEqual([]);
    expect(log.entries.map((entry) => entry.kind)).toEqual(["qr", "paired", "connected"]);
    await new SqlAuthStateStore(harness.database.sql, "inst-1").write(new Map([["sim.credential", credential]]));
    const stale = await openSession(harness, "inst-1");
    await stale.log.count("disconnected", 1);
    expect(stale.log.entries).toEqual([{ kind: "disconnected", reason: { kind: "logged_out", message: "the phone logged this device out" } }]);
  });

  test("logout while pairing clears auth and ends the session", async () => {
    const { session, log } = await openSession(harness, "inst-1");
    const [shown] = await log.count("qr", 1);
    await session.logout();
    expect(log.entries).toEqual([{ kind: "qr", code: shown!.code }]);
    await expect(harness.control.scan(phone, shown!.code)).rejects.toMatchObject({ status: 410, code: "code_expired" });
  });

  test("a dropped connection reports connection_lost, keeps auth, and the credential resumes", async () => {
    const { log } = await pairedSession(harness, "inst-1", phone);
    expect(await harness.control.drop(phone)).toEqual({ phone, dropped: 1 });
    await log.count("disconnected", 1);
    expect(log.of("disconnected")).toEqual([{ kind: "disconnected", reason: { kind: "connection_lost", message: "connection dropped by the simulated network" } }]);
    expect(await harness.control.devices()).toEqual([{ phone, connected: false, sessions: 0 }]);
    const again = await openSession(harness, "inst-1");
    await again.log.count("connected", 1);
    expect(again.log.entries).toEqual([{ kind: "connected" }]);
    await again.adapter.close();
  });
});

describe("the gateway's side fails", () => {
  test("a credential the store cannot write ends the connection as connection_lost, with no paired event", async () => {
    const { log } = await openSession(harness, "inst-1");
    const [shown] = await log.count("qr", 1);
    await harness.database.close();
    await harness.control.scan(phone, shown!.code);
    await log.count("disconnected", 1);
    expect(log.entries).toEqual([
      { kind: "qr", code: shown!.code },
      { kind: "disconnected", reason: { kind: "connection_lost", message: expect.stringMatching(/^the credential could not be stored: .+/) } },
    ]);
    harness.database = await openGatewayDatabase(`${harness.directory}/g.sqlite`);
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
  });

  test("logout after the connection was lost forgets the credential here (the network cannot be told)", async () => {
    const { session, log } = await pairedSession(harness, "inst-1", phone);
    await harness.control.drop(phone);
    await log.count("disconnected", 1);
    await session.logout();
    expect(await storedAuth(harness.database, "inst-1")).toEqual({});
    expect(await harness.control.devices()).toEqual([{ phone, connected: false, sessions: 0 }]);
  });
});

describe("an unreachable network", () => {
  test("open() rejects with an error naming the network when nothing listens", async () => {
    const gone = await startSimulatedNetwork();
    await gone.close();
    const adapter = new SimulatedNetwork(gone.url);
    const events = new EventLog();
    await expect(adapter.open({ instanceId: "inst-1", auth: new SqlAuthStateStore(harness.database.sql, "inst-1"), events })).rejects.toThrow(
      `instance inst-1: the simulated network at ${gone.url.replace("http", "ws")}/socket cannot be reached (connection refused or closed)`,
    );
    expect(events.entries).toEqual([]);
  });

  test("open() rejects after its timeout when the server accepts but never answers", async () => {
    const accepted: Socket[] = [];
    const silent: Server = createServer((socket: Socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    const adapter = new SimulatedNetwork(`http://127.0.0.1:${port}`, { openTimeoutMs: 100 });
    await expect(adapter.open({ instanceId: "inst-1", auth: new SqlAuthStateStore(harness.database.sql, "inst-1"), events: new EventLog() })).rejects.toThrow(
      `instance inst-1: the simulated network at ws://127.0.0.1:${port}/socket cannot be reached (no answer within 100 ms)`,
    );
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  test("the network going away reports connection_lost, keeps auth, and later sends fail as transient", async () => {
    const { session, log } = await pairedSession(harness, "inst-1", phone);
    await harness.network.close();
    await log.count("disconnected", 1);
    expect(log.of("disconnected")).toEqual([{ kind: "disconnected", reason: { kind: "connection_lost", message: "the simulated network is shutting down" } }]);
    expect(await session.send("+33612345678", { type: "text", text: "x" }, "m-1")).toEqual({ ok: false, transient: true, reason: "not connected to the simulated network" });
    expect(await storedAuth(harness.database, "inst-1")).toEqual({ "sim.credential": expect.stringMatching(credentialPattern), "sim.phone": phone });
  });
});
