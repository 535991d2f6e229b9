// The console's region-token source: one token in memory, reused while it has more than a
// minute left, renewed before it expires (one request however many callers wait), and asked
// for again once when the region refuses it.
import { expect, test } from "bun:test";
import { RegionTokenSource, renewBeforeExpiryMs } from "../../../../web/console/api/region-token.ts";
import type { RegionTokenResponse } from "../../../../web/console/api/types.ts";

const lifeMs = 10 * 60_000;

function issuer(clock: { now: number }) {
  const issued: RegionTokenResponse[] = [];
  const issue = async () => {
    const token: RegionTokenResponse = {
      token: `token-${issued.length + 1}`,
      region_api_url: "https://analytics.example.com/region/eu",
      expires_at: new Date(clock.now + lifeMs).toISOString(),
      region: "eu",
      environment: "production",
      scopes: ["query:read"],
    };
    issued.push(token);
    return token;
  };
  return { issued, issue };
}

test("a token is reused until it is within renewBeforeExpiryMs of expiring, then renewed by one request", async () => {
  const clock = { now: Date.parse("2026-11-27T10:00:00Z") };
  const { issued, issue } = issuer(clock);
  const source = new RegionTokenSource(issue, () => clock.now);
  expect((await Promise.all([source.get(), source.get(), source.get()])).map(({ token }) => token)).toEqual(["token-1", "token-1", "token-1"]);

  clock.now += lifeMs - renewBeforeExpiryMs - 1;
  expect((await source.get()).token).toBe("token-1");
  clock.now += 1;
  expect((await Promise.all([source.get(), source.get()])).map(({ token }) => token)).toEqual(["token-2", "token-2"]);
  expect(issued.length).toBe(2);
});

test("a region call carries the token; a 401 is retried once with a new token, and a second 401 is the answer", async () => {
  const clock = { now: Date.parse("2026-11-27T10:00:00Z") };
  const { issue } = issuer(clock);
  const source = new RegionTokenSource(issue, () => clock.now);
  const calls: [string, string | null][] = [];
  const answers = [401, 200, 401, 401];
  const send = (async (url: string, init: RequestInit) => {
    calls.push([url, new Headers(init.headers).get("authorization")]);
    return new Response("{}", { status: answers.shift()! });
  }) as typeof fetch;

  expect((await source.fetch("/events/live", {}, send)).status).toBe(200);
  expect((await source.fetch("/events/live", { headers: { accept: "text/event-stream" } }, send)).status).toBe(401);
  expect(calls).toEqual([
    ["https://analytics.example.com/region/eu/events/live", "Bearer token-1"],
    ["https://analytics.example.com/region/eu/events/live", "Bearer token-2"],
    ["https://analytics.example.com/region/eu/events/live", "Bearer token-2"],
    ["https://analytics.example.com/region/eu/events/live", "Bearer token-3"],
  ]);
});
