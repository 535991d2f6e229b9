// BaileysNetwork up to its network boundary: real Baileys sockets against real WebSocket servers
// on 127.0.0.1. WhatsApp's servers prove themselves with a certificate chain to WhatsApp's key
// during the Noise handshake, so no local server gets further than the handshake's first message:
// QR codes, pairing and messages are covered by the mapping tests instead.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initAuthCreds, proto, BufferJSON } from "baileys";
import type { Server, ServerWebSocket } from "bun";
import { BaileysNetwork } from "../../../server/gateway/network/baileys/baileys-network.ts";
import { credsName } from "../../../server/gateway/network/baileys/auth-state.ts";
import type { DisconnectReason, SessionEvents } from "../../../server/gateway/network/network.ts";
import { openGatewayDatabase, type GatewayDatabase } from "../../../server/gateway/store/database.ts";
import { SqlAuthStateStore } from "../../../server/gateway/store/auth-state.ts";

/** A WebSocket server standing in for web.whatsapp.com: it records what arrives and can hang up at once. */
class LocalWhatsAppServer {
  readonly connections: { path: string; origin: string | null }[] = [];
  readonly firstFrames: Uint8Array[] = [];
  private readonly waiters: { condition: () => boolean; resolve: () => void }[] = [];
  private closedSockets = 0;
  readonly server: Server<undefined>;

  constructor(private readonly hangUpAtOnce: boolean) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, server) => {
        this.connections.push({ path: new URL(request.url).pathname, origin: request.headers.get("origin") });
        return server.upgrade(request) ? undefined : new Response("upgrade required", { status: 426 });
      },
      websocket: {
        open: (socket: ServerWebSocket<undefined>) => {
          if (this.hangUpAtOnce) socket.close();
        },
        message: (_socket, data) => {
          this.firstFrames.push(typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data));
          this.changed();
        },
        close: () => {
          this.closedSockets += 1;
          this.changed();
        },
      },
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${this.server.port}/ws/chat`;
  }

  /** Resolves once `condition` holds (checked on every frame and close the server sees). */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ condition, resolve }));
  }

  framesReceived(count: number) {
    return this.until(() => this.firstFrames.length >= count);
  }

  socketsClosed(count: number) {
    return this.until(() => this.closedSockets >= count);
  }

  private changed() {
    for (const waiter of [...this.waiters]) {
      if (!waiter.condition()) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/** Session events recorded in order; `disconnected` is also a promise to wait on. */
function recordingEvents() {
  const seen: unknown[] = [];
  let onDisconnected!: (reason: DisconnectReason) => void;
  const disconnected = new Promise<DisconnectReason>((resolve) => (onDisconnected = resolve));
  const events: SessionEvents = {
    qr: (code) => void seen.push({ qr: code }),
    paired: (phone) => void seen.push({ paired: phone }),
    connected: () => void seen.push("connected"),
    disconnected: (reason) => {
      seen.push({ disconnected: reason });
      onDisconnected(reason);
    },
    message: async (message) => void seen.push({ message }),
    receipt: async (receipt) => void seen.push({ receipt }),
  };
  return { seen, events, disconnected };
}

let directory: string;
let database: GatewayDatabase;
let servers: LocalWhatsAppServer[];
let network: BaileysNetwork | null;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "baileys-network-"));
  database = await openGatewayDatabase(join(directory, "g.sqlite"));
  servers = [];
  network = null;
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});

afterEach(async () => {
  await network?.close();
  for (const server of servers) server.server.stop(true);
  process.off("unhandledRejection", onUnhandled);
  await database.close();
  await rm(directory, { recursive: true, force: true });
});

function localServer(hangUpAtOnce: boolean): LocalWhatsAppServer {
  const server = new LocalWhatsAppServer(hangUpAtOnce);
  servers.push(server);
  return server;
}

function store(instanceId = "inst-1") {
  return new SqlAuthStateStore(database.sql, instanceId);
}

/** Saves credentials of a paired device with a routing token, as a session saves them after a scan. */
async function savePairedCreds(instanceId: string, routingInfo: Buffer) {
  const creds = initAuthCreds();
  creds.me = { id: "4915112345678:4@s.whatsapp.net", name: "Shop" };
  creds.routingInfo = routingInfo;
  creds.registered = true;
  await store(instanceId).write(new Map([[credsName, JSON.stringify(creds, BufferJSON.replacer)]]));
  return creds;
}

describe("BaileysNetwork against a local WebSocket server", () => {
  test("a server that hangs up at once: the session reports connection_lost, keeps its auth state, and refuses sends as transient", async () => {
    const server = localServer(true);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { seen, events, disconnected } = recordingEvents();
    const session = await network.open({ instanceId: "inst-1", auth: store(), events });

    expect(await disconnected).toEqual({ kind: "connection_lost", message: "Connection Terminated" });
    expect(seen).toEqual([{ disconnected: { kind: "connection_lost", message: "Connection Terminated" } }]);
    expect(server.connections).toEqual([{ path: "/ws/chat", origin: "https://web.whatsapp.com" }]);
    expect(await session.send("+4915112345678", { type: "text", text: "hi" }, "3EB0AAAA")).toEqual({ ok: false, transient: true, reason: "session not connected" });
    await session.close();
    expect(unhandled).toEqual([]);
  });

  test("nothing listening: connection_lost with the socket's error, no crash", async () => {
    const server = localServer(false);
    const url = server.url;
    server.server.stop(true);
    network = new BaileysNetwork({ webSocketUrl: url });
    const { events, disconnected } = recordingEvents();
    await network.open({ instanceId: "inst-1", auth: store(), events });
    const reason = await disconnected;
    expect(reason.kind).toBe("connection_lost");
    expect(reason.message.length).toBeGreaterThan(0);
    expect(unhandled).toEqual([]);
  });

  test("the socket goes to the configured URL and opens the Noise handshake: WA header, length, a ClientHello with a 32-byte ephemeral key", async () => {
    const server = localServer(false);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { seen, events } = recordingEvents();
    const session = await network.open({ instanceId: "inst-1", auth: store(), events });
    await server.framesReceived(1);

    const frame = server.firstFrames[0]!;
    expect([...frame.subarray(0, 4)]).toEqual([0x57, 0x41, 6, 3]); // "WA", then Baileys' NOISE_WA_HEADER version bytes
    const length = (frame[4]! << 16) | (frame[5]! << 8) | frame[6]!;
    expect(length).toBe(frame.byteLength - 7);
    const hello = proto.HandshakeMessage.decode(frame.subarray(7));
    expect(Object.keys(hello.toJSON())).toEqual(["clientHello"]);
    expect(hello.clientHello?.ephemeral?.byteLength).toBe(32);

    await session.close();
    await server.socketsClosed(1);
    // An intended close is not a disconnection to report; no QR either (the handshake never finished).
    expect(seen).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  test("saved credentials are used: the first frame carries the saved routing token before the WA header, and a lost connection keeps them", async () => {
    const routingInfo = Buffer.from([8, 8, 8, 1, 2, 3]);
    const saved = await savePairedCreds("inst-1", routingInfo);
    const server = localServer(false);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { events, disconnected } = recordingEvents();
    await network.open({ instanceId: "inst-1", auth: store(), events });
    await server.framesReceived(1);

    const frame = server.firstFrames[0]!;
    // Baileys' edge-routing intro: "ED", 0, 1, a 3-byte length, the token, then the WA header.
    expect([...frame.subarray(0, 7 + routingInfo.byteLength + 4)]).toEqual([0x45, 0x44, 0, 1, 0, 0, routingInfo.byteLength, ...routingInfo, 0x57, 0x41, 6, 3]);

    server.server.stop(true);
    expect(await disconnected).toEqual({ kind: "connection_lost", message: "Connection Terminated" });
    const stored = (await store("inst-1").read([credsName])).get(credsName);
    expect(JSON.parse(stored!, BufferJSON.reviver)).toEqual(saved);
    expect(unhandled).toEqual([]);
  });

  test("sends to groups or malformed numbers are refused as permanent before the connection is even considered", async () => {
    const server = localServer(true);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { events, disconnected } = recordingEvents();
    const session = await network.open({ instanceId: "inst-1", auth: store(), events });
    await disconnected;
    expect(await session.send("120363012345678901@g.us", { type: "text", text: "hi" }, "3EB0AAAB")).toEqual({
      ok: false,
      transient: false,
      reason: "sending to group chats is not supported: give a phone number in E.164 (+4915…)",
    });
    expect(await session.send("015112345678", { type: "text", text: "hi" }, "3EB0AAAC")).toEqual({ ok: false, transient: false, reason: "recipient is not a phone number in E.164 (+4915…): 015112345678" });
  });

  test("logout without a connection forgets the auth state of this instance only and reports nothing", async () => {
    await savePairedCreds("inst-1", Buffer.from([1]));
    const other = await savePairedCreds("inst-2", Buffer.from([2]));
    await store("inst-1").write(new Map([["session:4915112345678.0", "{}"]]));
    const server = localServer(true);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { seen, events, disconnected } = recordingEvents();
    const session = await network.open({ instanceId: "inst-1", auth: store(), events });
    await disconnected;

    await session.logout();
    expect(await store("inst-1").read([credsName, "session:4915112345678.0"])).toEqual(new Map());
    expect(JSON.parse((await store("inst-2").read([credsName])).get(credsName)!, BufferJSON.reviver)).toEqual(other);
    expect(seen).toEqual([{ disconnected: { kind: "connection_lost", message: "Connection Terminated" } }]);
  });

  test("logout while the socket is still up ends it and forgets the auth state", async () => {
    await savePairedCreds("inst-1", Buffer.from([1]));
    const server = localServer(false);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const { seen, events } = recordingEvents();
    const session = await network.open({ instanceId: "inst-1", auth: store(), events });
    await server.framesReceived(1);
    await session.logout();
    await server.socketsClosed(1);
    expect(await store("inst-1").read([credsName])).toEqual(new Map());
    expect(seen).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  test("network.close() ends every session it opened", async () => {
    const server = localServer(false);
    network = new BaileysNetwork({ webSocketUrl: server.url });
    const first = recordingEvents();
    const second = recordingEvents();
    await network.open({ instanceId: "inst-1", auth: store("inst-1"), events: first.events });
    await network.open({ instanceId: "inst-2", auth: store("inst-2"), events: second.events });
    await server.framesReceived(2);

    await network.close();
    await server.socketsClosed(2);
    expect({ first: first.seen, second: second.seen }).toEqual({ first: [], second: [] });
    expect(server.connections.length).toBe(2);
  });

  test("open() with corrupt saved credentials fails instead of starting a new pairing", async () => {
    await store("inst-1").write(new Map([[credsName, "{broken"]]));
    network = new BaileysNetwork({ webSocketUrl: localServer(false).url });
    await expect(network.open({ instanceId: "inst-1", auth: store(), events: recordingEvents().events })).rejects.toThrow(SyntaxError);
  });
});

const childExitDeadlineMs = 10_000;

describe("BaileysNetwork leaves nothing running", () => {
  test("a process that opens a session, loses it, opens another and closes everything exits on its own", async () => {
    const script = join(directory, "open-and-close.ts");
    const source = (module: string) => JSON.stringify(join(import.meta.dir, "../../../server/gateway", module));
    await Bun.write(
      script,
      `
      import { BaileysNetwork } from ${source("network/baileys/baileys-network.ts")};
      import { openGatewayDatabase } from ${source("store/database.ts")};
      import { SqlAuthStateStore } from ${source("store/auth-state.ts")};
      // The first connection is hung up at once; the second stays open until the network closes it.
      let connections = 0, onFrame = () => {};
      const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, server) => (server.upgrade(request) ? undefined : new Response("", { status: 426 })),
        websocket: { open(socket) { connections += 1; if (connections === 1) socket.close(); }, message() { onFrame(); } } });
      const database = await openGatewayDatabase(${JSON.stringify(join(directory, "child.sqlite"))});
      const network = new BaileysNetwork({ webSocketUrl: "ws://127.0.0.1:" + server.port + "/ws/chat" });
      const quiet = { qr() {}, paired() {}, connected() {}, disconnected() {}, message: async () => {}, receipt: async () => {} };
      const lost = new Promise((resolve) => network.open({ instanceId: "a", auth: new SqlAuthStateStore(database.sql, "a"), events: { ...quiet, disconnected: resolve } }));
      console.log(JSON.stringify(await lost));
      const firstFrame = new Promise((resolve) => (onFrame = resolve));
      await network.open({ instanceId: "b", auth: new SqlAuthStateStore(database.sql, "b"), events: quiet });
      await firstFrame;
      await network.close();
      server.stop(true);
      await database.close();
      `,
    );
    const child = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    // The deadline only turns a hang into a failure; a process that exits resolves `exited` first.
    // It is shorter than Baileys' shortest timer that could hold the process (its 20 s connect timeout).
    const deadline = setTimeout(() => child.kill(), childExitDeadlineMs);
    const exitCode = await child.exited;
    clearTimeout(deadline);
    expect({ exitCode, signal: child.signalCode, stdout: await new Response(child.stdout).text(), stderr: await new Response(child.stderr).text() }).toEqual({
      exitCode: 0,
      signal: null,
      stdout: `${JSON.stringify({ kind: "connection_lost", message: "Connection Terminated" })}\n`,
      stderr: "",
    });
  });
});
