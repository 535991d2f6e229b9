// A stand-in for the mail API's send route: a real HTTP server on 127.0.0.1 that records every
// request and answers what the test queued (200 {id, status: "queued"} when nothing is queued).
// A `hold` answer keeps the request open until the server closes, to make a client time out.
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type PlannedAnswer = { status: number; body: string } | "hold";

export class RecordingMailApi {
  readonly requests: RecordedRequest[] = [];
  private readonly planned: PlannedAnswer[] = [];
  private readonly held: (() => void)[] = [];
  private readonly arrivalWaiters: { count: number; resolve: () => void }[] = [];
  private nextId = 1;

  private constructor(private readonly server: ReturnType<typeof Bun.serve>) {}

  static start(): RecordingMailApi {
    let api: RecordingMailApi | undefined;
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => api!.answer(request) });
    api = new RecordingMailApi(server);
    return api;
  }

  /** The base URL the transport is given (as `mail_api_url`). */
  get url(): string {
    return `http://127.0.0.1:${this.server.port}/mail`;
  }

  /** The next requests are answered with these, in order. */
  plan(...answers: PlannedAnswer[]): void {
    this.planned.push(...answers);
  }

  /** Resolves once `count` requests have arrived in all. */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    for (const release of this.held.splice(0)) release();
    await this.server.stop(true);
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({ method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
    for (const waiter of this.arrivalWaiters.filter((item) => this.requests.length >= item.count)) {
      this.arrivalWaiters.splice(this.arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const answer = this.planned.shift() ?? { status: 200, body: JSON.stringify({ id: `email-${this.nextId++}`, status: "queued" }) };
    if (answer === "hold") {
      await new Promise<void>((resolve) => this.held.push(resolve));
      return new Response("released", { status: 503 });
    }
    return new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } });
  }
}
