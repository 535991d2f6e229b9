// Builds the whole service (control plane + every live region's API and ingest) and serves
// it on one port. Each surface is its own Elysia app; this file only routes by prefix.
import { mkdirSync } from "node:fs";
import { ChunkStore } from "../engine/chunk-store.ts";
import { DecodePool } from "../engine/parallel/decode-pool.ts";
import { QueryService } from "./region/query-service.ts";
import { CohortService } from "./region/cohort-service.ts";
import { FindingsRunner, findingsPassIntervalMs } from "./findings/evaluation/findings-runner.ts";
import { FindingsQueries } from "./findings/evaluation/project-queries.ts";
import { ResultCache, resultCacheSweepIntervalMs } from "./region/result-cache.ts";
import { CatalogDiscovery } from "./region/catalog-discovery.ts";
import { RegionErasures } from "./region/erasure/region-erasures.ts";
import { join } from "node:path";
import { createLocalJWKSet, createRemoteJWKSet } from "jose";
import type { Server } from "bun";
import type { Config, RegionCode } from "./config.ts";
import { openControlStore } from "./control/db/open.ts";
import { controlApp } from "./control/app.ts";
import type { ControlContext } from "./control/context.ts";
import { ControlLimiters, requestTimeoutMs } from "./control/limits.ts";
import type { ContractOperation } from "./control/contract/operation.ts";
import { openMailTransport } from "./control/mail/transport.ts";
import { RegionTokenSigner } from "./control/services/region-token-signer.ts";
import { syncPendingKeys } from "./control/services/keys.ts";
import { syncPendingFlagSecretKeys } from "./control/flags/flag-secret-keys.ts";
import { syncPendingIntegrations } from "./control/integrations/integration-sync.ts";
import { syncPendingFindings } from "./control/findings/findings-sync.ts";
import { pushPendingCatalogs } from "./control/catalog/catalog-publication.ts";
import { pushUnpublished } from "./control/flags/flag-publications.ts";
import { pushRevocations } from "./control/services/token-revocations.ts";
import { startFindingsDelivery, type FindingsDelivery } from "./findings/delivery/findings-delivery.ts";
import { InFlightRequests } from "./http/in-flight.ts";
import { RegionNode } from "./region/region-node.ts";
import { LocalRegionLink, RemoteRegionLink, remoteErasureTimeoutMs, type RegionLink } from "./region/region-link.ts";
import { erasurePath } from "./region/erasure/erasure-routes.ts";
import { askPath } from "./region/ask/ask-routes.ts";
import { askQuestionTimeoutMs } from "./region/ask/ask-settings.ts";
import { jwksPath } from "./control/routes/discovery.ts";
import { regionApp } from "./region/app.ts";
import { revenueProviderModules } from "./ingest/revenue/providers/index.ts";
import { createAppStoreModule } from "./ingest/revenue/providers/app-store.ts";
import { ingestApp, ingestErrorResponse, unservedIngestRegionResponse } from "./ingest/app.ts";
import { errorResponse, type ApiError } from "./http/errors.ts";
import { withTimeout } from "./http/timeout.ts";
import { loggedPath } from "./http/logged-path.ts";
import { recordSocketAddress } from "./http/client-meta.ts";
import { sandboxKillGraceMs } from "../engine/sql/sandbox-runner.ts";
import { boundRequestHeads } from "./http/request-head.ts";
import { startCohortSchedule } from "./control/cohorts/cohort-schedule.ts";
import { ErasureKeyRing, erasureKeysFile } from "./control/erasure/erasure-keys.ts";
import { ErasureRunner } from "./control/erasure/erasure-runner.ts";
import { consoleSurface } from "./console/console-surface.ts";
import { sdkPrefix, sdkSurface } from "./sdk/sdk-surface.ts";
import { startGateway, type RunningGateway } from "./gateway/gateway.ts";
import { startMail, type RunningMail } from "./mail/mail.ts";
import { mcpSurface } from "./mcp/mcp-surface.ts";
import { mcpPath } from "./mcp/protected-resource.ts";
import { SpendCapEnforcer } from "./control/billing/spend-cap-enforcer.ts";

/** Answers a request; `path` is its URL's path (parsed once, while routing). */
type Handler = (request: Request, path: string) => Response | Promise<Response>;

interface Surface {
  handle: Handler;
  /** How this surface words an error it did not produce itself (the time-out). */
  renderError: (error: ApiError) => Response;
  /** When the surface's request is answered 503 whatever its handler is doing. */
  timeoutMs: number;
}

/** How long a stopping server gives its last answers to be written once no handler runs. */
const closeGraceMs = 250;

/** The most Bun takes for a connection's idle time-out. */
const bunIdleTimeoutSecondsMax = 255;

/**
 * Bun's idle time-out for a surface's requests: by default Bun closes a connection whose answer
 * has not started after 10 s, which would cut a query allowed 30 s (or a question waiting on a
 * slow model) before its own time-out answers. One second past the surface's time-out, so the
 * surface's 503 is what a client sees.
 */
export const idleTimeoutSeconds = (timeoutMs: number) => Math.min(bunIdleTimeoutSecondsMax, Math.ceil(timeoutMs / 1000) + 1);

/**
 * The region's last resort: a query answers 422 query_too_large at its own time-out (a /sql
 * process is killed at most sandboxKillGraceMs after it), so the request time-out comes later,
 * or a client would be told 503, to retry a query that can never finish.
 */
export const regionTimeoutMarginMs = 3_000;
export const regionRequestTimeoutMs = (queryTimeoutMs: number) => queryTimeoutMs + sandboxKillGraceMs + regionTimeoutMarginMs;

export interface RunningService {
  url: string;
  ctx: ControlContext;
  nodes: ReadonlyMap<RegionCode, RegionNode>;
  /** Each local region's query runner (its concurrency gate and result cache). */
  queries: ReadonlyMap<RegionCode, QueryService>;
  /** Each local region's findings schedule (evaluateDue runs a pass at a given time). */
  findings: ReadonlyMap<RegionCode, FindingsRunner>;
  /** The control plane's routes as mounted (its router's table), and as declared for /openapi.json. */
  control: { routes: { method: string; path: string }[]; operations: readonly ContractOperation[] };
  /** The messaging gateway, served at /gateway. */
  gateway: RunningGateway;
  /** The transactional-mail API, served at /mail. */
  mailApi: RunningMail;
  /** Builds the web console now rather than at its first request. */
  prepareConsole(): Promise<void>;
  /** Builds the browser SDK's files (/sdk/v1/…) now rather than at their first request. */
  prepareSdk(): Promise<void>;
  /** Stops accepting, waits for in-flight requests, closes every database. */
  stop(): Promise<void>;
}

export const mailOutboxFile = "mail-outbox.jsonl";
/** Where the one process serves the messaging gateway (its `gateway_url` is the base URL plus this). */
export const gatewayPrefix = "/gateway";
/** Where the one process serves the mail API (its `mail_api_url` is the base URL plus this). */
export const mailPrefix = "/mail";
/** Keys, flags, region-token revocations and tracking plans a region could not take are pushed again this often. */
export const keySyncRetryIntervalMs = 30_000;

export async function startService(config: Config): Promise<RunningService> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = openControlStore(join(config.dataDir, "control.sqlite"));
  const signer = await RegionTokenSigner.loadOrCreate(join(config.dataDir, "region-token-key.json"));
  const erasureKeys = await ErasureKeyRing.loadOrCreate(join(config.dataDir, erasureKeysFile));
  // One column cache and one result cache for every region: their bounds are the process's, not each region's.
  // Decode workers beside the request thread, shared likewise; ended when the service stops.
  const decodePool = config.queryWorkers > 1 ? new DecodePool(config.queryWorkers - 1) : null;
  const columns = new ChunkStore(config.queryCacheBytes, decodePool);
  const results = new ResultCache(config.queryResultCacheBytes);

  const nodes = new Map<RegionCode, RegionNode>();
  const links = new Map<RegionCode, RegionLink>();
  const queryServices = new Map<RegionCode, QueryService>();
  const cohortServices = new Map<RegionCode, CohortService>();
  const discoveries = new Map<RegionCode, CatalogDiscovery>();
  const erasureServices = new Map<RegionCode, RegionErasures>();
  const findingsDeliveries: FindingsDelivery[] = [];
  const findingsRunners = new Map<RegionCode, FindingsRunner>();
  const revenueModules = revenueProviderModules([createAppStoreModule(config.appStoreRoots)]);
  for (const code of config.regions) {
    const remoteUrl = config.remoteRegions[code];
    if (remoteUrl) {
      links.set(code, new RemoteRegionLink(code, remoteUrl, config.regionSecret!));
      continue;
    }
    const node = await RegionNode.open(code, join(config.dataDir, code), config.storage, config.datacenterRanges, config.replayFlushIntervalMs);
    nodes.set(code, node);
    // Raised findings and "send test" go out through the region's durable outbox.
    const findingsDelivery = startFindingsDelivery(node.store, { log: (line) => console.error(`region ${code}: ${line}`) });
    node.findings = findingsDelivery.outbox;
    findingsDeliveries.push(findingsDelivery);
    const queries = new QueryService(node, columns, results, config.queryRowsMax, config.queryTimeoutMs);
    queryServices.set(code, queries);
    // Cohort calculations are queries: they share the region's concurrency gate and limits.
    const cohorts = new CohortService(node, columns, queries.gate, { rowsMax: config.queryRowsMax, timeoutMs: config.queryTimeoutMs });
    cohortServices.set(code, cohorts);
    // A discovery is a query too.
    const discovery = new CatalogDiscovery(node, columns, queries.gate, config.queryTimeoutMs);
    discoveries.set(code, discovery);
    // Erasures clear the shared caches of what they erase.
    const erasures = new RegionErasures(node, columns, results);
    erasureServices.set(code, erasures);
    links.set(code, new LocalRegionLink(node, cohorts, discovery, erasures));
    // Findings rules are judged by queries too; the sent findings go to node.findings (the delivery outbox).
    const findingsQueries = new FindingsQueries(node, columns, queries.gate, { rowsMax: config.queryRowsMax, timeoutMs: config.queryTimeoutMs });
    findingsRunners.set(code, new FindingsRunner(node.store, { queries: findingsQueries, warnings: node.warnings }, () => node.findings, {
      region: code, dailyCapDefault: config.findingsDailyCap, intervalMs: findingsPassIntervalMs,
    }));
  }
  const sweepTimer = setInterval(() => results.sweep(Date.now()), resultCacheSweepIntervalMs);

  let listeningUrl = "";
  // The control plane reaches this process's own mail API over loopback: `localhost` may name
  // ::1 first, where a server bound to 0.0.0.0 does not listen.
  let ownMailApiUrl = "";
  // Made once the context exists (it drives requests with it); a request before that waits for its first pass.
  let erasureRunner: ErasureRunner | null = null;
  const ctx: ControlContext = {
    config,
    db: store.db,
    mail: openMailTransport(config.controlMail, join(config.dataDir, mailOutboxFile), () => ownMailApiUrl),
    regions: links,
    signer,
    erasure: { keys: erasureKeys, wake: () => erasureRunner?.wake() },
    limiters: new ControlLimiters(),
    payments: config.payments,
    billing: new SpendCapEnforcer(),
    baseUrl: () => config.publicUrl ?? listeningUrl,
    cacheStats: () => {
      const decoded = columns.stats();
      return { results: results.stats(), columns: { entries: decoded.columns, bytes: decoded.bytes, bytes_max: config.queryCacheBytes } };
    },
  };

  // A region node started for another control plane trusts that control plane's keys only.
  const keys = config.controlPlaneUrl
    ? createRemoteJWKSet(new URL(`${config.controlPlaneUrl}${jwksPath}`))
    : createLocalJWKSet(signer.jwks());
  const issuer = () => config.controlPlaneUrl ?? ctx.baseUrl();
  const surfaces = new Map<string, Surface>();
  for (const [code, node] of nodes) {
    const region = regionApp({
      prefix: `/region/${code}`, node, queries: queryServices.get(code)!, cohorts: cohortServices.get(code)!, discovery: discoveries.get(code)!,
      erasures: erasureServices.get(code)!, keys, issuer,
      regionSecret: config.regionSecret, ask: config.ask,
    });
    const ingest = ingestApp({ prefix: `/ingest/${code}`, node, trustProxy: config.trustProxy, revenueModules });
    surfaces.set(`/region/${code}`, { handle: (request) => region.handle(request), renderError: errorResponse, timeoutMs: regionRequestTimeoutMs(config.queryTimeoutMs) });
    // An erasure answers once done, which may take far longer than a query: the control plane waits up to remoteErasureTimeoutMs.
    surfaces.set(`/region/${code}${erasurePath}`, { handle: (request) => region.handle(request), renderError: errorResponse, timeoutMs: remoteErasureTimeoutMs });
    // A question waits on several model calls and queries: POST /ask has its own bound
    // (askQuestionTimeoutMs, plus a last query's), and a slow local model leaves the connection
    // silent far longer than Bun's default idle time-out.
    const askTimeoutMs = askQuestionTimeoutMs + regionRequestTimeoutMs(config.queryTimeoutMs);
    surfaces.set(`/region/${code}${askPath}`, {
      handle: (request) => region.handle(request), renderError: errorResponse, timeoutMs: askTimeoutMs,
    });
    surfaces.set(`/ingest/${code}`, { handle: ingest.handle, renderError: ingestErrorResponse, timeoutMs: requestTimeoutMs });
  }
  const control = controlApp(ctx);
  const gateway = await startGateway(config.gateway, config.dataDir, gatewayPrefix);
  const gatewaySurface: Surface = { handle: (request) => gateway.handle(request), renderError: errorResponse, timeoutMs: requestTimeoutMs };
  const mail = await startMail(config.mail, config.dataDir, mailPrefix, { apiUrl: () => `${ctx.baseUrl()}${mailPrefix}` });
  const mailSurface: Surface = { handle: (request) => mail.handle(request), renderError: errorResponse, timeoutMs: requestTimeoutMs };
  const controlSurface: Surface = { handle: (request) => control.app.handle(request), renderError: errorResponse, timeoutMs: requestTimeoutMs };
  // The MCP server's tools wait on region queries, so it waits as long as the region does.
  const mcp = mcpSurface(ctx);
  const mcpServerSurface: Surface = { handle: mcp.handle, renderError: errorResponse, timeoutMs: regionRequestTimeoutMs(config.queryTimeoutMs) };

  // The console owns every page path outside the API namespaces: the control plane's (read
  // from its route table, so a new API prefix is never taken for a page) and the regions'.
  const consoleUi = consoleSurface({
    apiSegments: new Set([...control.app.routes.map(({ path }) => path.split("/", 2)[1]!), "region", "ingest", gatewayPrefix.slice(1), mailPrefix.slice(1), sdkPrefix.slice(1), mcpPath.slice(1)]),
    publicOrigin: () => new URL(ctx.baseUrl()).origin,
  });
  const consoleUiSurface: Surface = { handle: consoleUi.handle, renderError: errorResponse, timeoutMs: requestTimeoutMs };
  const sdk = sdkSurface();
  const sdkFilesSurface: Surface = { handle: sdk.handle, renderError: errorResponse, timeoutMs: requestTimeoutMs };

  const unservedIngestRegion: Surface = { handle: unservedIngestRegionResponse, renderError: ingestErrorResponse, timeoutMs: requestTimeoutMs };
  const route = (method: string, path: string): Surface => {
    if (consoleUi.serves(method, path)) return consoleUiSurface;
    if (sdk.serves(path)) return sdkFilesSurface;
    const exact = surfaces.get(path);
    if (exact) return exact;
    const match = path.match(/^\/(region|ingest)\/([a-z]{2})(?:\/|$)/);
    const surface = match && surfaces.get(`/${match[1]}/${match[2]}`);
    if (surface) return surface;
    if (path === gatewayPrefix || path.startsWith(`${gatewayPrefix}/`)) return gatewaySurface;
    if (path === mailPrefix || path.startsWith(`${mailPrefix}/`)) return mailSurface;
    if (mcp.serves(path)) return mcpServerSurface;
    // Everything under /ingest/ answers in the ingest shape, even for a region not served here.
    return path === "/ingest" || path.startsWith("/ingest/") ? unservedIngestRegion : controlSurface;
  };

  boundRequestHeads();
  const inFlight = new InFlightRequests();
  const server: Server<unknown> = Bun.serve({
    port: config.port,
    hostname: config.host,
    // Surfaces enforce their own body limits (64 KB control plane, 20 MB ingest) while
    // streaming, and answer in their own error shape; Bun's cap only guards the extreme.
    maxRequestBodySize: 1024 * 1024 * 1024,
    fetch: async (request, srv) => {
      const started = performance.now();
      recordSocketAddress(request, srv.requestIP(request)?.address);
      const path = new URL(request.url).pathname;
      const surface = route(request.method, path);
      srv.timeout(request, idleTimeoutSeconds(surface.timeoutMs));
      const response = await inFlight.track(withTimeout(Promise.resolve(surface.handle(request, path)), surface.timeoutMs, surface.renderError));
      if (config.logRequests) {
        console.log(`${request.method} ${loggedPath(path)} ${response.status} ${(performance.now() - started).toFixed(1)}ms`);
      }
      return response;
    },
  });
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  listeningUrl = `http://${host}:${server.port}`;
  const loopback = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "[::1]" : host;
  ownMailApiUrl = `http://${loopback}:${server.port}${mailPrefix}`;

  // What the regions should hold but may have missed (a region down during a change).
  const syncPending = async () => {
    await syncPendingKeys(ctx);
    await syncPendingFlagSecretKeys(ctx);
    await syncPendingIntegrations(ctx);
    await syncPendingFindings(ctx);
    await pushUnpublished(ctx);
    await pushRevocations(ctx);
    await pushPendingCatalogs(ctx);
  };
  await syncPending();
  let syncing = false;
  const retryTimer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    syncPending().finally(() => (syncing = false));
  }, keySyncRetryIntervalMs);
  const stopCohortSchedule = startCohortSchedule(ctx);
  const stopSpendCaps = ctx.billing.start(ctx);
  erasureRunner = new ErasureRunner(ctx);
  erasureRunner.wake();
  for (const runner of findingsRunners.values()) runner.start();

  return {
    url: listeningUrl,
    ctx,
    nodes,
    queries: queryServices,
    findings: findingsRunners,
    control: { routes: control.app.routes.map(({ method, path }) => ({ method, path })), operations: control.operations },
    gateway,
    mailApi: mail,
    prepareConsole: consoleUi.prepare,
    prepareSdk: sdk.prepare,
    stop: async () => {
      clearInterval(retryTimer);
      stopCohortSchedule();
      await stopSpendCaps();
      clearInterval(sweepTimer);
      // Before the regions close: an erasure under way finishes (a killed one resumes at the next start).
      await erasureRunner!.stop();
      // Before the regions close: a pass under way finishes its rule (its queries read the region).
      await Promise.all([...findingsRunners.values()].map((runner) => runner.stop()));
      // The server waits for every open answer, and a live event stream stays open until ended.
      await Promise.all([...nodes.values()].map((node) => node.live.close()));
      // Graceful, but only until no answer is in flight and the last one has had closeGraceMs
      // to be written: idle keep-alive connections are then closed rather than waited for until
      // their idle time-out (in-flight.ts).
      await Promise.race([server.stop(), inFlight.settled().then(() => Bun.sleep(closeGraceMs))]);
      await server.stop(true);
      // After the server: its last answers may still hand mail over.
      await ctx.mail.close();
      await Promise.all(findingsDeliveries.map((delivery) => delivery.stop()));
      for (const node of nodes.values()) await node.close();
      await decodePool?.close();
      await gateway.close();
      await mail.close();
      store.close();
    },
  };
}
