// POST /experiments/stats (scope experiments:read): an experiment's statistics over the token's
// project environment (docs/experiment-results.md). The control plane calls it with a region
// token and keeps the answer as ExperimentResultsDto.stats.
import { Elysia } from "elysia";
import { jsonResponse } from "../../http/errors.ts";
import { readJsonBody } from "../../http/body.ts";
import { validateBody } from "../../http/validate.ts";
import { regionAccess, type RegionTokenCheck } from "../region-access.ts";
import type { QueryService } from "../query-service.ts";
import type { RegionNode } from "../region-node.ts";
import { ExperimentStatsService } from "./stats-service.ts";
import { StatsBody, statsInput, type StatsBodyInput } from "./stats-request.ts";

const statsBodyBytesMax = 256 * 1024;

/** Shares the column cache and the per-project concurrency gate of POST /query. */
export function experimentStatsRoutes(node: RegionNode, queries: QueryService, check: RegionTokenCheck) {
  const stats = new ExperimentStatsService(node, queries.columns, queries.gate, queries.timeoutMs);
  return new Elysia({ name: `region-experiments-${check.region}` })
    .post("/experiments/stats", async ({ request }) => {
      const claims = await regionAccess(request, check, "experiments:read");
      const body = validateBody<StatsBodyInput>(StatsBody, await readJsonBody(request, statsBodyBytesMax));
      return jsonResponse(200, await stats.run(claims, statsInput(body)));
    }, { parse: "none" });
}
