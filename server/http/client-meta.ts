// The dispatcher in service.ts hands requests to each surface's app.handle(), where Elysia
// has no server object; so the socket address is recorded per request here, once, when the
// request arrives.

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

const socketAddresses = new WeakMap<Request, string>();

export function recordSocketAddress(request: Request, address: string | undefined): void {
  if (address) socketAddresses.set(request, address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address);
}

/** The client's address: the socket peer, or the first X-Forwarded-For hop behind a trusted proxy. */
export function requestMeta(request: Request, trustProxy: boolean): RequestMeta {
  let ip: string | null = null;
  if (trustProxy) ip = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || null;
  if (!ip) ip = socketAddresses.get(request) ?? null;
  return { ip, userAgent: request.headers.get("user-agent") };
}
