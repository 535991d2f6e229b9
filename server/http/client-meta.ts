import type { Server } from "bun";

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** The client's address: the socket peer, or the first X-Forwarded-For hop behind a trusted proxy. */
export function requestMeta(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): RequestMeta {
  let ip: string | null = null;
  if (trustProxy) ip = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || null;
  if (!ip) ip = server?.requestIP(request)?.address ?? null;
  if (ip?.startsWith("::ffff:")) ip = ip.slice("::ffff:".length);
  return { ip, userAgent: request.headers.get("user-agent") };
}
