// A loopback proxy in front of a region node in another process-like service: tests hold the
// control plane's calls to it (closed), or take it down (502), deterministically.
import type { Server } from "bun";

/** Forwards to `target`; while closed, holds requests until opened; while down, answers 502. */
export class Gate {
  target = "";
  down = false;
  private held: (() => void)[] = [];
  private arrivals: ((path: string) => void)[] = [];
  private closed = false;
  readonly server: Server<unknown>;

  constructor() {
    this.server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        const url = new URL(request.url);
        for (const notify of this.arrivals.splice(0)) notify(url.pathname);
        if (this.closed) await new Promise<void>((resolve) => this.held.push(resolve));
        if (this.down) return new Response("bad gateway", { status: 502 });
        const body = request.method === "GET" ? undefined : await request.arrayBuffer();
        return fetch(this.target + url.pathname + url.search, { method: request.method, headers: request.headers, body });
      },
    });
  }

  get url() { return `http://127.0.0.1:${this.server.port}`; }
  close() { this.closed = true; }
  open() { this.closed = false; for (const release of this.held.splice(0)) release(); }
  nextArrival(): Promise<string> { return new Promise((resolve) => this.arrivals.push(resolve)); }
}
