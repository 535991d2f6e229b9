// Shared pieces of the findings delivery tests: a region.sqlite in a temporary directory with
// one project's findings configuration, a raised finding, and a local HTTP receiver standing in
// for Slack and for a customer's webhook endpoint (answers as each test says; records every
// request with its raw body and headers).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../../storage/region-store.ts";
import type { RaisedFinding, RegionFindingsDestination, RegionFindingsProject } from "../../../server/findings/findings-types.ts";

export const projectId = "0191f0a0-0000-7000-8000-000000000001";
export const t0 = Date.parse("2026-11-28T06:00:00.000Z");
export const whsecSecret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;

export function tempStore(dirs: string[]): { store: RegionStore; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "findings-delivery-"));
  dirs.push(dir);
  const path = join(dir, "region.sqlite");
  return { store: new RegionStore(path), path };
}

export const removeDirs = (dirs: string[]) => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
};

export function destination(overrides: Partial<RegionFindingsDestination> & Pick<RegionFindingsDestination, "id">): RegionFindingsDestination {
  return {
    kind: "webhook",
    name: "Ops endpoint",
    enabled: true,
    min_severity: "info",
    config: { to: [], channel: null },
    secret: "http://127.0.0.1:9/unused",
    signing_secret: whsecSecret,
    ...overrides,
  };
}

export function project(destinations: RegionFindingsDestination[]): RegionFindingsProject {
  return {
    projectId,
    orgId: "0191f0a0-0000-7000-8000-0000000000aa",
    dataId: 7,
    environment: "production",
    timeZone: "UTC",
    consoleUrl: "https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001",
    destinations,
    rules: [],
    metrics: [],
  };
}

export function finding(overrides: Partial<RaisedFinding> = {}): RaisedFinding {
  return {
    id: "0191f0a0-0000-7000-8000-00000000f001",
    projectId,
    ruleId: "0191f0a0-0000-7000-8000-00000000a001",
    ruleName: "Signups per day",
    target: { kind: "event_volume", event: "signup" },
    cadence: "daily",
    severity: "warning",
    periodStart: "2026-11-27T00:00:00.000Z",
    periodEnd: "2026-11-28T00:00:00.000Z",
    value: 120,
    baseline: 400,
    change: -280,
    relativeChange: -0.7,
    anomalyZ: null,
    summary: "signup fell to 120 from a usual 400 (-70%)",
    raisedAt: "2026-11-28T05:59:00.000Z",
    sent: true,
    ...overrides,
  };
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Answer = (request: ReceivedRequest) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Answers in turn; the last one repeats. */
  answers: Answer[];
  close(): void;
}

export const status = (code: number, body: string | null = null, headers: Record<string, string> = {}): Answer => () => new Response(body, { status: code, headers });

export function startReceiver(answers: Answer[] = [status(200, "ok")]): Receiver {
  const hanging: (() => void)[] = [];
  const receiver: Receiver = {
    url: "",
    requests: [],
    answers,
    close: () => {
      for (const release of hanging) release();
      server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const received: ReceivedRequest = { path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() };
      const index = receiver.requests.push(received) - 1;
      const answer = receiver.answers[Math.min(index, receiver.answers.length - 1)]!;
      return answer(received);
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}/hooks/T000/B000/secretpart`;
  // A receiver that never answers: released (late) when the receiver closes.
  (receiver as Receiver & { hang: Answer }).hang = () => new Promise<Response>((resolve) => hanging.push(() => resolve(new Response("late", { status: 504 }))));
  return receiver;
}

/** An answer that never comes (until the receiver closes). */
export const hang = (receiver: Receiver): Answer => (receiver as Receiver & { hang: Answer }).hang;
