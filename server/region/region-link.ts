// How the control plane reaches a region. In the default single process the link calls the
// region node directly; the interface is what a remote region node would implement over
// its internal HTTP API.
import type { RegionCode } from "../config.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { FlagSecretKeyEntry, FlagSnapshot } from "../../storage/flag-store.ts";
import type { TokenRevocation } from "../../storage/token-revocations.ts";
import type { RegionNode } from "./region-node.ts";

export interface RegionLink {
  readonly code: RegionCode;
  /** Pushes the latest state of these keys into the region's key registry. */
  syncKeys(keys: RegistryKey[]): Promise<void>;
  /** Hands the region a flag snapshot (it keeps the newest version it has). */
  publishFlags(snapshot: FlagSnapshot): Promise<void>;
  /** Pushes the latest state of these flag secret keys (hashes only). */
  syncFlagSecretKeys(keys: FlagSecretKeyEntry[]): Promise<void>;
  /** Hands the region region-token revocations (it keeps each until the tokens it covers expire). */
  revokeTokens(revocations: TokenRevocation[]): Promise<void>;
  /** "ok", or a short reason the region cannot serve. */
  health(): Promise<string>;
}

export type RegionLinks = ReadonlyMap<RegionCode, RegionLink>;

export class LocalRegionLink implements RegionLink {
  constructor(private readonly node: RegionNode) {}

  get code(): RegionCode {
    return this.node.code;
  }

  async syncKeys(keys: RegistryKey[]): Promise<void> {
    this.node.store.upsertKeys(keys);
  }

  async publishFlags(snapshot: FlagSnapshot): Promise<void> {
    this.node.store.flags.publish(snapshot);
  }

  async syncFlagSecretKeys(keys: FlagSecretKeyEntry[]): Promise<void> {
    this.node.store.flags.upsertSecretKeys(keys);
  }

  async revokeTokens(revocations: TokenRevocation[]): Promise<void> {
    this.node.store.tokenRevocations.add(revocations);
  }

  async health(): Promise<string> {
    return this.node.health();
  }
}

export const regionSecretHeader = "X-Region-Secret";
/** A region that does not answer the internal API within this time counts as unreachable. */
export const remoteRegionTimeoutMs = 10_000;

/** A region node in another process, reached over its internal HTTP API. */
export class RemoteRegionLink implements RegionLink {
  constructor(
    readonly code: RegionCode,
    private readonly regionApiUrl: string,
    private readonly secret: string,
  ) {}

  private async post(path: string, body: unknown, what: string): Promise<void> {
    const response = await fetch(`${this.regionApiUrl}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(remoteRegionTimeoutMs),
    });
    if (response.status !== 204) throw new Error(`region ${this.code} answered ${response.status} to ${what}`);
  }

  syncKeys(keys: RegistryKey[]): Promise<void> {
    return this.post("/internal/keys", { keys }, "a key sync");
  }

  publishFlags(snapshot: FlagSnapshot): Promise<void> {
    return this.post("/internal/flags", snapshot, "a flag publication");
  }

  syncFlagSecretKeys(keys: FlagSecretKeyEntry[]): Promise<void> {
    return this.post("/internal/flag-secret-keys", { keys }, "a flag secret key sync");
  }

  revokeTokens(revocations: TokenRevocation[]): Promise<void> {
    return this.post("/internal/token-revocations", { revocations }, "a region-token revocation");
  }

  async health(): Promise<string> {
    try {
      const response = await fetch(`${this.regionApiUrl}/health`, { signal: AbortSignal.timeout(remoteRegionTimeoutMs) });
      const body = (await response.json()) as { checks?: Record<string, string> };
      return body.checks?.[`region:${this.code}`] ?? `error: region answered ${response.status}`;
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  }
}
