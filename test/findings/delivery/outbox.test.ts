// The outbox: which destinations a finding is queued for (existing, enabled, with a URL, and
// whose min_severity it reaches), once per finding and destination; resuming after the file is
// reopened, and after a SIGKILL with an attempt in flight (sent again with the same webhook-id
// and bytes); the runner's timers and its bound on attempts in flight; the send-test action.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ApiError } from "../../../server/http/errors.ts";
import { startFindingsDelivery, type FindingsDelivery } from "../../../server/findings/delivery/findings-delivery.ts";
import { deliveryConcurrencyMax } from "../../../server/findings/delivery/delivery-runner.ts";
import { testAttemptsKeptMax } from "../../../server/findings/delivery/findings-outbox.ts";
import type { RegionFindingsDestination } from "../../../server/findings/findings-types.ts";
import { RegionStore } from "../../../storage/region-store.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { watchOutput } from "../../helpers/process.ts";
import { destination, finding, hang, project, projectId, removeDirs, startReceiver, status, t0, tempStore, type Answer } from "./fixtures.ts";

const findingId = finding().id;
const dirs: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => removeDirs(dirs));

function setUp(destinations: (url: string) => RegionFindingsDestination[], answers: Answer[] = [status(200)], timeoutMs?: number) {
  const { store, path } = tempStore(dirs);
  const receiver = startReceiver(answers);
  store.findingsConfig.upsert([project(destinations(receiver.url))]);
  const delivery = startFindingsDelivery(store, { start: false, now: () => t0, timeoutMs, log: () => {} });
  cleanups.push(() => receiver.close(), () => store.close(), () => delivery.stop());
  return { store, path, receiver, delivery };
}

const queued = (delivery: FindingsDelivery) => delivery.outbox.deliveriesOf(findingId).map((state) => state.destinationId);

describe("queueing", () => {
  test("only existing, enabled destinations with a URL whose min_severity the finding reaches", () => {
    const { delivery } = setUp((url) => [
      destination({ id: "d-info", secret: url, min_severity: "info" }),
      destination({ id: "d-warning", secret: url, min_severity: "warning" }),
      destination({ id: "d-critical", secret: url, min_severity: "critical" }),
      destination({ id: "d-disabled", secret: url, enabled: false }),
      destination({ id: "d-no-url", secret: null }),
      destination({ id: "d-empty-url", secret: "" }),
      destination({ id: "d-not-named", secret: url }),
    ]);
    const named = ["d-info", "d-warning", "d-critical", "d-disabled", "d-no-url", "d-empty-url", "d-unknown", "d-info"];
    delivery.outbox.enqueue(projectId, finding({ severity: "warning" }), named);
    expect(queued(delivery)).toEqual(["d-info", "d-warning"]);
    // Queued again (the evaluator retried): nothing is added and nothing changes.
    const before = delivery.outbox.deliveriesOf(findingId);
    delivery.outbox.enqueue(projectId, finding({ severity: "critical" }), named);
    expect(queued(delivery)).toEqual(["d-critical", "d-info", "d-warning"]);
    expect(delivery.outbox.deliveriesOf(findingId).filter((state) => state.destinationId !== "d-critical")).toEqual(before);
    expect(before).toEqual([
      { destinationId: "d-info", state: "pending", attempts: [], nextAttemptAt: "2026-11-28T06:00:00.000Z" },
      { destinationId: "d-warning", state: "pending", attempts: [], nextAttemptAt: "2026-11-28T06:00:00.000Z" },
    ]);
  });

  test("info reaches only info destinations; a finding over its daily cap and an unknown project queue nothing", () => {
    const { delivery } = setUp((url) => [destination({ id: "d-info", secret: url }), destination({ id: "d-warning", secret: url, min_severity: "warning" })]);
    delivery.outbox.enqueue(projectId, finding({ id: "f-capped", sent: false }), ["d-info", "d-warning"]);
    delivery.outbox.enqueue("0191f0a0-0000-7000-8000-0000000000ff", finding({ id: "f-other" }), ["d-info"]);
    expect(delivery.outbox.deliveriesOf("f-capped")).toEqual([]);
    expect(delivery.outbox.deliveriesOf("f-other")).toEqual([]);
    delivery.outbox.enqueue(projectId, finding({ severity: "info" }), ["d-info", "d-warning"]);
    expect(queued(delivery)).toEqual(["d-info"]);
    expect(delivery.outbox.deliveriesOf("f-never-raised")).toEqual([]);
  });
});

describe("resuming", () => {
  test("pending deliveries are sent after the file is reopened, with the same webhook-id and bytes", async () => {
    const { store, path, receiver, delivery } = setUp((url) => [destination({ id: "d-1", secret: url })], [status(500), status(204)]);
    delivery.outbox.enqueue(projectId, finding(), ["d-1"]);
    await delivery.runner.runDue(t0);
    await delivery.stop();
    store.close();
    const reopened = new RegionStore(path);
    cleanups.push(() => reopened.close());
    const again = startFindingsDelivery(reopened, { start: false, now: () => t0, log: () => {} });
    cleanups.push(() => again.stop());
    expect(again.outbox.deliveriesOf(findingId)[0]!.state).toBe("pending");
    expect(await again.runner.runDue(t0 + 30_000)).toBe(1);
    expect(receiver.requests.length).toBe(2);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]!);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    expect(again.outbox.deliveriesOf(findingId).map((state) => [state.state, state.attempts.map((attempt) => attempt.status)])).toEqual([["delivered", [500, 204]]]);
  });

  test("a delivery in flight when the process is killed (SIGKILL) is sent again: same webhook-id, same bytes", async () => {
    const { path, receiver } = setUp(() => []);
    receiver.answers = [hang(receiver), status(204)];
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "outbox-child.ts"), path, receiver.url], { stdout: "pipe", stderr: "pipe" });
    cleanups.push(() => void child.kill("SIGKILL"));
    const output = watchOutput(child.stdout as ReadableStream<Uint8Array>);
    await output.waitFor(/queued/);
    await waitFor(() => receiver.requests.length === 1, 10_000, "the child's attempt");
    child.kill("SIGKILL");
    await child.exited;
    const reopened = new RegionStore(path);
    cleanups.push(() => reopened.close());
    const again = startFindingsDelivery(reopened, { start: false, log: () => {} });
    cleanups.push(() => again.stop());
    // The attempt in flight was never logged: the delivery is still pending, due.
    const [state] = again.outbox.deliveriesOf(findingId);
    expect([state!.state, state!.attempts]).toEqual(["pending", []]);
    expect(await again.runner.runDue(Date.now())).toBe(1);
    expect(receiver.requests.length).toBe(2);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]!);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    expect(again.outbox.deliveriesOf(findingId).map((entry) => [entry.state, entry.attempts.map((attempt) => [attempt.attempt, attempt.status])])).toEqual([["delivered", [[1, 204]]]]);
  });
});

describe("the runner", () => {
  test("started, it sends a queued finding at once and a retry when its timer is due", async () => {
    const { store } = tempStore(dirs);
    // The clock jumps 31 s ahead while the first attempt is answered: the retry (due 30 s after
    // it) is then due as the runner sets its timer, which fires at once (no waiting, no kick).
    let offset = 0;
    const receiver = startReceiver([
      () => {
        offset = 31_000;
        return new Response(null, { status: 503 });
      },
      status(204),
    ]);
    store.findingsConfig.upsert([project([destination({ id: "d-1", secret: receiver.url })])]);
    const delivery = startFindingsDelivery(store, { now: () => Date.now() + offset, log: () => {} });
    cleanups.push(() => receiver.close(), () => store.close(), () => delivery.stop());
    delivery.outbox.enqueue(projectId, finding(), ["d-1"]);
    await waitFor(() => delivery.outbox.deliveriesOf(findingId)[0]!.state === "delivered", 10_000, "the retry");
    expect(delivery.outbox.deliveriesOf(findingId)[0]!.attempts.map((attempt) => attempt.status)).toEqual([503, 204]);
    expect(receiver.requests.length).toBe(2);
  });

  test(`at most ${deliveryConcurrencyMax} attempts are in flight at once`, async () => {
    let inFlight = 0;
    let most = 0;
    let received = 0;
    let held: (() => void)[] = [];
    const total = 20;
    const holding: Answer = async () => {
      inFlight += 1;
      received += 1;
      most = Math.max(most, inFlight);
      // Held until as many as may be in flight are, or the last ones arrived: then all are answered.
      const released = new Promise<void>((resolve) => held.push(resolve));
      if (inFlight === deliveryConcurrencyMax || received === total) for (const release of held.splice(0)) release();
      await released;
      inFlight -= 1;
      return new Response(null, { status: 204 });
    };
    const { delivery } = setUp((url) => Array.from({ length: total }, (_, index) => destination({ id: `d-${String(index).padStart(2, "0")}`, secret: url })), [holding]);
    delivery.outbox.enqueue(projectId, finding(), Array.from({ length: total }, (_, index) => `d-${String(index).padStart(2, "0")}`));
    expect(await delivery.runner.runDue(t0)).toBe(total);
    expect(most).toBe(deliveryConcurrencyMax);
    expect(delivery.outbox.deliveriesOf(findingId).every((state) => state.state === "delivered")).toBe(true);
  });
});

describe("send test", () => {
  test("one attempt, never retried, logged; a failure is returned as an attempt", async () => {
    const { delivery, receiver } = setUp(
      (url) => [destination({ id: "d-1", secret: url, enabled: false }), destination({ id: "d-no-url", secret: null }), destination({ id: "d-bad-url", secret: "ftp://example.com/x" })],
      [status(204), status(500, "nope")],
    );
    const ok = await delivery.outbox.sendTest(projectId, "d-1");
    expect({ ...ok, durationMs: 0 }).toEqual({ destinationId: "d-1", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 204, ok: true, error: null, durationMs: 0 });
    const failed = await delivery.outbox.sendTest(projectId, "d-1");
    expect({ ...failed, durationMs: 0 }).toEqual({ destinationId: "d-1", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 500, ok: false, error: "HTTP 500: nope", durationMs: 0 });
    expect(await delivery.outbox.sendTest(projectId, "d-no-url")).toEqual({ destinationId: "d-no-url", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: null, ok: false, error: "the destination has no URL", durationMs: 0 });
    expect(await delivery.outbox.sendTest(projectId, "d-bad-url")).toEqual({ destinationId: "d-bad-url", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: null, ok: false, error: "the destination's URL is not an http:// or https:// URL", durationMs: 0 });
    // Never retried: nothing is queued, and a runner pass much later sends nothing.
    expect(await delivery.runner.runDue(t0 + 86_400_000)).toBe(0);
    expect(receiver.requests.length).toBe(2);
    expect(receiver.requests.map((request) => JSON.parse(request.body).type)).toEqual(["finding.test", "finding.test"]);
    // Each test has its own webhook-id.
    expect(receiver.requests[0]!.headers["webhook-id"]).not.toBe(receiver.requests[1]!.headers["webhook-id"]!);
    expect(delivery.outbox.testsOf(projectId, "d-1").map((attempt) => [attempt.status, attempt.error])).toEqual([
      [500, "HTTP 500: nope"],
      [204, null],
    ]);
  });

  test(`the last ${testAttemptsKeptMax} test attempts of a destination are kept`, async () => {
    let clock = t0;
    const { store, receiver } = setUp((url) => [destination({ id: "d-1", secret: url })]);
    const delivery = startFindingsDelivery(store, { start: false, now: () => clock, log: () => {} });
    cleanups.push(() => delivery.stop());
    for (let index = 0; index <= testAttemptsKeptMax; index += 1) {
      clock = t0 + index * 1_000;
      await delivery.outbox.sendTest(projectId, "d-1");
    }
    const kept = delivery.outbox.testsOf(projectId, "d-1");
    expect(kept.length).toBe(testAttemptsKeptMax);
    expect([kept[0]!.at, kept.at(-1)!.at]).toEqual([new Date(t0 + testAttemptsKeptMax * 1_000).toISOString(), new Date(t0 + 1_000).toISOString()]);
    expect(receiver.requests.length).toBe(testAttemptsKeptMax + 1);
  });

  test("404 not_found for a destination the region does not know in that project", async () => {
    const { delivery, receiver } = setUp((url) => [destination({ id: "d-1", secret: url })]);
    for (const [project_, destinationId] of [
      [projectId, "d-unknown"],
      ["0191f0a0-0000-7000-8000-0000000000ff", "d-1"],
    ] as const) {
      const error = await delivery.outbox.sendTest(project_, destinationId).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect([(error as ApiError).status, (error as ApiError).code, (error as ApiError).message]).toEqual([404, "not_found", "destination not found"]);
    }
    expect(receiver.requests.length).toBe(0);
  });
});
