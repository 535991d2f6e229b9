// A typed client of the simulated network's control API, for tests, demos and benchmarks that
// act as phones. Every refusal throws a SimulatedNetworkControlError with the API's code.
import type { DeviceSummary, InboxMessage, NetworkStats } from "./network-state.ts";
import type { Refusal } from "./phones.ts";

export type { DeviceSummary, InboxMessage, NetworkStats } from "./network-state.ts";

/** What a contact sends: text, or one media item (bytes as base64). */
export type ContactMessage =
  | { text: string }
  | { media: { type: "image" | "document" | "audio" | "video" | "sticker"; mimeType: string; dataBase64: string; fileName?: string; caption?: string } };

export class SimulatedNetworkControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export class SimulatedNetworkControl {
  /** `url`: the simulated network's base URL, as startSimulatedNetwork answers it. */
  constructor(private readonly url: string) {}

  /** `phone` scans a pairing code shown by a gateway session: the session is paired to it. */
  scan(phone: string, code: string): Promise<{ phone: string }> {
    return this.call("POST", `/phones/${path(phone)}/scan`, { code });
  }

  /** A contact `from` sends a message to the paired number `to`. */
  sendFromPhone(from: string, to: string, message: ContactMessage): Promise<{ networkId: string }> {
    return this.call("POST", `/phones/${path(from)}/messages`, { to, ...message });
  }

  /** Every message gateway numbers sent to `phone`, oldest first. */
  async inbox(phone: string): Promise<InboxMessage[]> {
    return (await this.call<{ messages: InboxMessage[] }>("GET", `/phones/${path(phone)}/inbox`)).messages;
  }

  read(phone: string, networkId: string): Promise<{ networkId: string; readAt: number }> {
    return this.call("POST", `/phones/${path(phone)}/read`, { networkId });
  }

  setOnline(phone: string, online: boolean): Promise<{ phone: string; online: boolean }> {
    return this.call("PUT", `/phones/${path(phone)}/online`, { online });
  }

  /** How the network answers `phone`'s sends from now on; null accepts them again. */
  refuse(phone: string, mode: Refusal["mode"] | null, reason?: string): Promise<{ phone: string; refusal: Refusal | null }> {
    return this.call("PUT", `/phones/${path(phone)}/refuse`, reason === undefined ? { mode } : { mode, reason });
  }

  /** Drops the connection of `phone`'s device (its session reports connection_lost). */
  drop(phone: string): Promise<{ phone: string; dropped: number }> {
    return this.call("POST", `/devices/${path(phone)}/drop`);
  }

  /** The phone logs its gateway device out (the credential is void; the session reports logged_out). */
  logout(phone: string): Promise<{ phone: string; loggedOut: true }> {
    return this.call("POST", `/devices/${path(phone)}/logout`);
  }

  async devices(): Promise<DeviceSummary[]> {
    return (await this.call<{ devices: DeviceSummary[] }>("GET", "/devices")).devices;
  }

  stats(): Promise<NetworkStats> {
    return this.call("GET", "/stats");
  }

  private async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(this.url + route, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as T | { error: { code: string; message: string } };
    if (!response.ok) {
      const { error } = answer as { error: { code: string; message: string } };
      throw new SimulatedNetworkControlError(response.status, error.code, error.message);
    }
    return answer as T;
  }
}

function path(phone: string): string {
  return encodeURIComponent(phone);
}
