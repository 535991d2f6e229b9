// The routes that need no key: what the service is, liveness (the process is up: restart it
// when this fails), readiness (it can serve: its store answers; take it out of rotation when
// this fails, do not restart it) and the build with its attribution notice.
import { Elysia } from "elysia";
import { unavailable } from "../../http/errors.ts";
import { about } from "../about.ts";
import type { GatewayContext } from "../context.ts";

export const publicRoutes = (ctx: GatewayContext) =>
  new Elysia()
    .get("/", () => ({
      service: "messaging-gateway",
      description: "Registers numbers on a messaging network, queues outbound messages and delivers inbound ones by webhook. Every route but this one, /v1/live, /v1/ready and /v1/about needs an apikey header.",
    }))
    .get("/v1/live", () => ({ status: "live" }))
    .get("/v1/ready", async () => {
      try {
        await ctx.database.sql`SELECT 1 AS ok`;
      } catch {
        throw unavailable("the gateway's store does not answer");
      }
      return { status: "ready", store: ctx.database.dialect };
    })
    .get("/v1/about", () => about(ctx.settings.buildCommit));
