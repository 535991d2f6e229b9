// With sharding, a request about a number that another live replica holds is passed to that
// replica (its REPLICA_URL), which holds the number's session; the answer comes back as it is.
// A forwarded request is never forwarded again, so two replicas disagreeing cannot loop.
import { unavailable } from "../../http/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayInstance } from "../store/instances.ts";

export const forwardedHeader = "x-gateway-forwarded-by";
export const replicaHeader = "x-gateway-replica";
/** The owner must answer a forwarded request within this long. */
export const forwardTimeoutMs = 15_000;

/** The owner's answer, or null when this replica should answer itself. */
export async function forwardToOwner(ctx: GatewayContext, instance: GatewayInstance, request: Request): Promise<Response | null> {
  if (!ctx.settings.sharding || request.headers.has(forwardedHeader)) return null;
  if (instance.owner === null || instance.owner === ctx.replica || (instance.leaseExpiresAt ?? 0) < ctx.now()) return null;
  const owner = await ctx.replicas.get(instance.owner);
  if (!owner?.url) return null;
  const url = new URL(request.url);
  const path = url.pathname.slice(ctx.prefix.length);
  const headers = new Headers(request.headers);
  headers.set(forwardedHeader, ctx.replica);
  headers.delete("host");
  headers.delete("content-length");
  try {
    const body = request.method === "GET" || request.method === "HEAD" || request.bodyUsed ? undefined : await request.arrayBuffer();
    const answer = await fetch(`${owner.url}${path}${url.search}`, { method: request.method, headers, body, signal: AbortSignal.timeout(forwardTimeoutMs) });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  } catch (error) {
    throw unavailable(`the replica holding this number (${owner.id}) did not answer: ${(error as Error).message}`);
  }
}
