// How the control plane reaches a region. In the default single process the link calls the
// region node directly; the interface is what a remote region node would implement over
// its internal HTTP API.
import type { RegionCode } from "../config.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { RegionNode } from "./region-node.ts";

export interface RegionLink {
  readonly code: RegionCode;
  /** Pushes the latest state of these keys into the region's key registry. */
  syncKeys(keys: RegistryKey[]): Promise<void>;
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

  async health(): Promise<string> {
    return this.node.health();
  }
}
