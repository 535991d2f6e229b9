// How the control plane reaches a region. In the default single process the link calls the
// region node directly; the interface is what a remote region node would implement over
// its internal HTTP API.
import type { RegionCode } from "../config.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { FlagSecretKeyEntry, FlagSnapshot } from "../../storage/flag-store.ts";
import type { TokenRevocation } from "../../storage/token-revocations.ts";
import type { CatalogPlan } from "../../storage/catalog-plan-store.ts";
import type { RegionIntegration } from "../../storage/integration-store.ts";
import type { RegionNode } from "./region-node.ts";
import type { UsageTotals } from "../../storage/usage-counters.ts";
import type { UsageRow } from "./usage-routes.ts";
import type { CatalogDiscovery, DiscoveryAnswer, DiscoveryScope } from "./catalog-discovery.ts";
import type { CohortMaterialized, CohortMaterializeRequest, CohortService } from "./cohort-service.ts";
import { ApiError } from "../http/errors.ts";
import { queryTimeoutMs } from "./query-service.ts";
import type { RegionErasures } from "./erasure/region-erasures.ts";
import type { ErasureProgress, RegionErasureReport, RegionErasureRequest } from "./erasure/erasure-types.ts";
import type { RegionFindingsProject, TestDeliveryResult } from "../findings/findings-types.ts";
import { sendFindingsTest } from "./findings-internal-routes.ts";

export type { CohortMaterialized, CohortMaterializeRequest };
export type { ErasureProgress, RegionErasureReport, RegionErasureRequest };

/** The region answered a request with an error (its status, code and message, to be recorded or shown). */
export class RegionRefusal extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface RegionLink {
  readonly code: RegionCode;
  /** Pushes the latest state of these keys into the region's key registry. */
  syncKeys(keys: RegistryKey[]): Promise<void>;
  /** Hands the region a flag snapshot (it keeps the newest version it has). */
  publishFlags(snapshot: FlagSnapshot): Promise<void>;
  /** Pushes the latest state of these flag secret keys (hashes only). */
  syncFlagSecretKeys(keys: FlagSecretKeyEntry[]): Promise<void>;
  /**
   * Pushes the latest state of these revenue integrations (secrets included: the region verifies
   * webhook signatures); `replace`: they are all of the region's integrations, any other goes.
   */
  putIntegrations(integrations: RegionIntegration[], replace: boolean): Promise<void>;
  /** Removes a revenue integration: its webhook URL answers 404 from then on. */
  deleteIntegration(id: string): Promise<void>;
  /**
   * Pushes these projects' whole findings configuration (secrets included: the region delivers);
   * `replace`: they are all of the region's projects with findings configuration, any other goes.
   */
  putFindingsConfig(projects: RegionFindingsProject[], replace: boolean): Promise<void>;
  /** Removes a project's findings configuration (it has none left, or the project was deleted). */
  deleteFindingsConfig(projectId: string): Promise<void>;
  /**
   * Sends a test message to a findings destination now (one attempt, never retried).
   * RegionRefusal: 404 when the region does not know the destination, 503 `unavailable` when
   * findings delivery is not running there or the region cannot be reached.
   */
  testFindingsDestination(projectId: string, destinationId: string): Promise<TestDeliveryResult>;
  /** Hands the region region-token revocations (it keeps each until the tokens it covers expire). */
  revokeTokens(revocations: TokenRevocation[]): Promise<void>;
  /**
   * Calculates a cohort's membership in an environment and stores it in the region (a static
   * cohort: records the calculation of its stored members). RegionRefusal when the region
   * refuses (e.g. 409 conflict: a cohort it depends on has no membership there).
   */
  materializeCohort(request: CohortMaterializeRequest): Promise<CohortMaterialized>;
  /** What the project environment sent in the last `days` days, for the tracking plan's sync. */
  catalogDiscovery(scope: DiscoveryScope, days: number): Promise<DiscoveryAnswer>;
  /** Hands the region a project's tracking plan (it keeps the newest version it has). */
  publishCatalog(plan: CatalogPlan): Promise<void>;
  /**
   * Erases the persons the request names, and everything of theirs, from the region (see
   * server/region/erasure/). Idempotent by erasure_id: asked again, the region resumes an
   * interrupted job or answers the stored report. RegionRefusal (400 bad_request) for a
   * malformed request. `onProgress` hears each stage as it starts (local regions only).
   */
  erase(request: RegionErasureRequest, onProgress?: ErasureProgress): Promise<RegionErasureReport>;
  /** What the region stored for these projects in [fromMs, toMs) (billing's meters). */
  usage(projectIds: string[], fromMs: number, toMs: number): Promise<UsageTotals[]>;
  /** Sets the share of a project's events and recordings capture keeps (spend-cap sampling; 1 keeps all). */
  setKeepRatio(projectId: string, keepRatio: number): Promise<void>;
  /** "ok", or a short reason the region cannot serve. */
  health(): Promise<string>;
}

export type RegionLinks = ReadonlyMap<RegionCode, RegionLink>;

export class LocalRegionLink implements RegionLink {
  constructor(
    private readonly node: RegionNode,
    private readonly cohorts: CohortService,
    private readonly discovery: CatalogDiscovery,
    private readonly erasures: RegionErasures,
  ) {}

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

  async putIntegrations(integrations: RegionIntegration[], replace: boolean): Promise<void> {
    if (replace) this.node.store.integrations.replaceAll(integrations);
    else this.node.store.integrations.upsert(integrations);
  }

  async deleteIntegration(id: string): Promise<void> {
    this.node.store.integrations.delete(id);
  }

  async putFindingsConfig(projects: RegionFindingsProject[], replace: boolean): Promise<void> {
    if (replace) this.node.store.findingsConfig.replaceAll(projects);
    else this.node.store.findingsConfig.upsert(projects);
  }

  async deleteFindingsConfig(projectId: string): Promise<void> {
    this.node.store.findingsConfig.delete(projectId);
  }

  async testFindingsDestination(projectId: string, destinationId: string): Promise<TestDeliveryResult> {
    try {
      return await sendFindingsTest(this.node, projectId, destinationId);
    } catch (error) {
      if (error instanceof ApiError) throw new RegionRefusal(error.status, error.code, error.message);
      throw error;
    }
  }

  async materializeCohort(request: CohortMaterializeRequest): Promise<CohortMaterialized> {
    try {
      return await this.cohorts.materializeRequested(request);
    } catch (error) {
      if (error instanceof ApiError) throw new RegionRefusal(error.status, error.code, error.message);
      throw error;
    }
  }

  catalogDiscovery(scope: DiscoveryScope, days: number): Promise<DiscoveryAnswer> {
    return this.discovery.discover(scope, days);
  }

  async publishCatalog(plan: CatalogPlan): Promise<void> {
    this.node.publishCatalog(plan);
  }

  async erase(request: RegionErasureRequest, onProgress?: ErasureProgress): Promise<RegionErasureReport> {
    try {
      return await this.erasures.erase(request, onProgress);
    } catch (error) {
      if (error instanceof ApiError) throw new RegionRefusal(error.status, error.code, error.message);
      throw error;
    }
  }

  async usage(projectIds: string[], fromMs: number, toMs: number): Promise<UsageTotals[]> {
    return this.node.store.usage.totals(projectIds, fromMs, toMs);
  }

  async setKeepRatio(projectId: string, keepRatio: number): Promise<void> {
    this.node.setKeepRatio(projectId, keepRatio);
  }

  async health(): Promise<string> {
    return this.node.health();
  }
}

export const regionSecretHeader = "X-Region-Secret";
/** A region that does not answer the internal API within this time counts as unreachable. */
export const remoteRegionTimeoutMs = 10_000;
/** A cohort calculation runs up to the query time-out; the region's answer may take that long and more. */
export const remoteMaterializeTimeoutMs = queryTimeoutMs + remoteRegionTimeoutMs;
/** A discovery reads data like a query: the region's own query time-out bounds it first. */
export const remoteDiscoveryTimeoutMs = 30_000;

/** A test send makes one delivery attempt, bounded by the delivery's own time-out: this leaves room for it. */
export const remoteFindingsTestTimeoutMs = 30_000;

/**
 * An erasure rewrites the parts of the project's events (reading and writing each once) and
 * compacts what waits in segments first: on a large project that takes minutes. The control
 * plane asks again if the answer does not come in time (the job goes on, or resumes).
 */
export const remoteErasureTimeoutMs = 30 * 60_000;

/** A region node in another process, reached over its internal HTTP API. */
export class RemoteRegionLink implements RegionLink {
  constructor(
    readonly code: RegionCode,
    private readonly regionApiUrl: string,
    private readonly secret: string,
  ) {}

  private async post(path: string, body: unknown, what: string, method = "POST"): Promise<void> {
    const response = await fetch(`${this.regionApiUrl}${path}`, {
      method,
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: body === undefined ? undefined : JSON.stringify(body),
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

  putIntegrations(integrations: RegionIntegration[], replace: boolean): Promise<void> {
    return this.post("/internal/integrations", { integrations, replace }, "an integration sync", "PUT");
  }

  deleteIntegration(id: string): Promise<void> {
    return this.post(`/internal/integrations/${encodeURIComponent(id)}`, undefined, "an integration deletion", "DELETE");
  }

  putFindingsConfig(projects: RegionFindingsProject[], replace: boolean): Promise<void> {
    return this.post("/internal/findings", { projects, replace }, "a findings configuration sync", "PUT");
  }

  deleteFindingsConfig(projectId: string): Promise<void> {
    return this.post(`/internal/findings/${encodeURIComponent(projectId)}`, undefined, "a findings configuration removal", "DELETE");
  }

  async testFindingsDestination(projectId: string, destinationId: string): Promise<TestDeliveryResult> {
    const path = `/internal/findings/${encodeURIComponent(projectId)}/destinations/${encodeURIComponent(destinationId)}/test`;
    let response: Response;
    try {
      response = await fetch(`${this.regionApiUrl}${path}`, {
        method: "POST",
        headers: { [regionSecretHeader]: this.secret },
        signal: AbortSignal.timeout(remoteFindingsTestTimeoutMs),
      });
    } catch (error) {
      throw new RegionRefusal(503, "unavailable", `region ${this.code} cannot be reached: ${(error as Error).message}`);
    }
    const body = await response.json().catch(() => null);
    if (response.status === 200) return body as TestDeliveryResult;
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof error?.code === "string" && typeof error.message === "string") throw new RegionRefusal(response.status, error.code, error.message);
    throw new RegionRefusal(503, "unavailable", `region ${this.code} answered ${response.status} to a findings test send`);
  }

  revokeTokens(revocations: TokenRevocation[]): Promise<void> {
    return this.post("/internal/token-revocations", { revocations }, "a region-token revocation");
  }

  async materializeCohort(request: CohortMaterializeRequest): Promise<CohortMaterialized> {
    const response = await fetch(`${this.regionApiUrl}/internal/cohorts/materialize`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(remoteMaterializeTimeoutMs),
    });
    const body = await response.json().catch(() => null);
    if (response.status === 200) return body as CohortMaterialized;
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof error?.code === "string" && typeof error.message === "string") throw new RegionRefusal(response.status, error.code, error.message);
    throw new RegionRefusal(response.status, "unavailable", `region ${this.code} answered ${response.status} to a cohort calculation`);
  }

  async catalogDiscovery(scope: DiscoveryScope, days: number): Promise<DiscoveryAnswer> {
    const response = await fetch(`${this.regionApiUrl}/internal/catalog/discovery`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify({ project_id: scope.projectId, data_id: scope.dataId, environment: scope.environment, days }),
      signal: AbortSignal.timeout(remoteDiscoveryTimeoutMs),
    });
    if (response.status !== 200) throw new Error(`region ${this.code} answered ${response.status} to a catalog discovery: ${(await response.text()).slice(0, 500)}`);
    return (await response.json()) as DiscoveryAnswer;
  }

  publishCatalog(plan: CatalogPlan): Promise<void> {
    return this.post("/internal/catalog/plan", plan, "a tracking plan");
  }

  async erase(request: RegionErasureRequest): Promise<RegionErasureReport> {
    const response = await fetch(`${this.regionApiUrl}/internal/erasures`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(remoteErasureTimeoutMs),
    });
    const body = await response.json().catch(() => null);
    if (response.status === 200) return body as RegionErasureReport;
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof error?.code === "string" && typeof error.message === "string") throw new RegionRefusal(response.status, error.code, error.message);
    throw new RegionRefusal(response.status, "unavailable", `region ${this.code} answered ${response.status} to an erasure`);
  }

  async usage(projectIds: string[], fromMs: number, toMs: number): Promise<UsageTotals[]> {
    const response = await fetch(`${this.regionApiUrl}/internal/usage`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify({ project_ids: projectIds, from_ms: fromMs, to_ms: toMs }),
      signal: AbortSignal.timeout(remoteRegionTimeoutMs),
    });
    if (response.status !== 200) throw new Error(`region ${this.code} answered ${response.status} to a usage read: ${(await response.text()).slice(0, 500)}`);
    const body = (await response.json()) as { usage: UsageRow[] };
    return body.usage.map((row) => ({
      projectId: row.project_id, eventsReceived: row.events_received, eventsStored: row.events_stored, replayRecordings: row.replay_recordings,
    }));
  }

  async setKeepRatio(projectId: string, keepRatio: number): Promise<void> {
    const response = await fetch(`${this.regionApiUrl}/internal/ingest-policy/${projectId}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", [regionSecretHeader]: this.secret },
      body: JSON.stringify({ keep_ratio: keepRatio }),
      signal: AbortSignal.timeout(remoteRegionTimeoutMs),
    });
    if (response.status !== 200) throw new Error(`region ${this.code} answered ${response.status} to an ingest policy: ${(await response.text()).slice(0, 500)}`);
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
