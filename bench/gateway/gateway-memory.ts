// The gateway process's own memory, read through the route bench/gateway/gateway-process.ts adds.

export const benchMemoryPath = "/__bench/memory";

export interface GatewayMemory {
  rssBytes: number;
  heapUsedBytes: number;
}

/** RSS and heap of the gateway process after a full collection. */
export async function readGatewayMemory(gatewayUrl: string): Promise<GatewayMemory> {
  const response = await fetch(gatewayUrl + benchMemoryPath);
  if (!response.ok) throw new Error(`${benchMemoryPath} answered ${response.status}`);
  return (await response.json()) as GatewayMemory;
}
