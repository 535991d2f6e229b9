// The gateway's adapter to the simulated network (network-server.ts): one WebSocket per
// session, the device credential kept in the instance's auth state under `sim.credential`
// (and the paired number under `sim.phone`), so a restart or another replica resumes without
// a new scan.
//
// When the network cannot be reached, open() rejects with an Error saying so (rather than
// resolving a session that reports connection_lost at once): the caller learns of it where it
// asked, and retries the open as it would any failed open. A connection lost after open() is
// reported as disconnected {kind: "connection_lost"}.
import type { MessagingNetwork, NetworkSession, OpenSessionInput } from "../network.ts";
import { socketPath } from "./protocol.ts";
import { authNames, SimulatedSession } from "./simulated-session.ts";

/** How long open() waits for the network to accept the WebSocket before rejecting. */
const defaultOpenTimeoutMs = 10_000;

export class SimulatedNetwork implements MessagingNetwork {
  readonly name = "simulated";
  private readonly socketUrl: string;
  private readonly sessions = new Set<SimulatedSession>();

  /** `url`: the simulated network's base URL, as startSimulatedNetwork answers it (http://host:port). */
  constructor(
    url: string,
    private readonly options: { openTimeoutMs?: number } = {},
  ) {
    const socketUrl = new URL(socketPath, url);
    socketUrl.protocol = socketUrl.protocol === "https:" ? "wss:" : "ws:";
    this.socketUrl = socketUrl.href;
  }

  async open({ instanceId, auth, events }: OpenSessionInput): Promise<NetworkSession> {
    const stored = await auth.read([authNames.credential]);
    const socket = await openSocket(this.socketUrl, this.options.openTimeoutMs ?? defaultOpenTimeoutMs, instanceId);
    const session: SimulatedSession = new SimulatedSession(socket, auth, events, () => this.sessions.delete(session));
    this.sessions.add(session);
    session.hello(stored.get(authNames.credential) ?? null);
    return session;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}

function openSocket(url: string, timeoutMs: number, instanceId: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const settle = (failure: string | null) => {
      clearTimeout(timer);
      socket.removeEventListener("open", opened);
      socket.removeEventListener("error", failed);
      socket.removeEventListener("close", failed);
      if (failure === null) return resolve(socket);
      socket.close();
      reject(new Error(`instance ${instanceId}: the simulated network at ${url} cannot be reached (${failure})`));
    };
    const opened = () => settle(null);
    const failed = () => settle("connection refused or closed");
    const timer = setTimeout(() => settle(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.addEventListener("open", opened);
    socket.addEventListener("error", failed);
    socket.addEventListener("close", failed);
  });
}
