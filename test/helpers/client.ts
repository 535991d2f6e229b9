// HTTP helpers over real fetch: a console client with its own cookie jar, and bearer calls.
export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const response = await fetch(baseUrl + path, { method, headers, body, redirect: "manual" });
  const text = await response.text();
  let parsed: unknown = text === "" ? undefined : text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A browser-like console client: keeps the svc_session cookie between calls. */
export class ConsoleClient {
  cookie: string | null = null;

  constructor(readonly baseUrl: string, readonly userAgent = "test-browser/1.0") {}

  async request(method: string, path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = { "user-agent": this.userAgent };
    if (this.cookie) headers.cookie = this.cookie;
    const reply = await call(this.baseUrl, method, path, { body, headers });
    const setCookie = reply.headers.get("set-cookie");
    if (setCookie) {
      const [pair] = setCookie.split(";");
      this.cookie = pair!.endsWith("=") ? null : pair!;
    }
    return reply;
  }

  /** The body of a 2xx answer; anything else throws with the answer (for scripts and benchmarks, which have no expect). */
  async send<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const reply = await this.request(method, path, body);
    if (reply.status < 200 || reply.status > 299) throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body as T;
  }

  /** The session cookie, for a browser context to be signed in as this client. */
  sessionCookie(): { name: string; value: string } {
    const [name, value] = (this.cookie ?? "").split("=", 2);
    if (!name || !value) throw new Error("this client is not signed in");
    return { name, value };
  }

  get = (path: string) => this.request("GET", path);
  post = (path: string, body?: unknown) => this.request("POST", path, body);
  patch = (path: string, body?: unknown) => this.request("PATCH", path, body);
  delete = (path: string) => this.request("DELETE", path);
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
