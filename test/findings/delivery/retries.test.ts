// Retries, driven by runDue with an advancing clock (nothing sleeps): the backoff schedule,
// a 4xx failing at once, 408 and 429 retried, Retry-After honoured (and capped), a receiver
// that never answers, the last attempt, bounded reading of a receiver's answer, and a
// destination removed or disabled while its delivery waited.
import { afterEach, describe, expect, test } from "bun:test";
import { startFindingsDelivery, type FindingsDelivery } from "../../../server/findings/delivery/findings-delivery.ts";
import { deliveryAttemptsMax, deliveryRetryDelaysMs, retryAfterMaxMs } from "../../../server/findings/delivery/schedule.ts";
import { responseExcerptBytesMax } from "../../../server/findings/delivery/post-delivery.ts";
import type { DeliveryState, RegionFindingsDestination } from "../../../server/findings/findings-types.ts";
import type { RegionStore } from "../../../storage/region-store.ts";
import { destination, finding, hang, project, projectId, removeDirs, startReceiver, status, t0, tempStore, type Answer, type Receiver } from "./fixtures.ts";

const findingId = finding().id;
const iso = (ms: number) => new Date(ms).toISOString();

interface Scenario {
  store: RegionStore;
  receiver: Receiver;
  delivery: FindingsDelivery;
  lines: string[];
  state(): DeliveryState;
}

const dirs: string[] = [];
const open: Scenario[] = [];

afterEach(async () => {
  for (const scenario of open.splice(0)) {
    await scenario.delivery.stop();
    scenario.receiver.close();
    scenario.store.close();
  }
  removeDirs(dirs);
});

/** One webhook destination in front of a receiver answering `answers`, and the finding queued for it at t0. */
function scenario(answers: (receiver: Receiver) => Answer[], options: { timeoutMs?: number; destination?: Partial<RegionFindingsDestination> } = {}): Scenario {
  const { store } = tempStore(dirs);
  const receiver = startReceiver();
  receiver.answers = answers(receiver);
  store.findingsConfig.upsert([project([destination({ id: "d-1", secret: receiver.url, ...options.destination })])]);
  const lines: string[] = [];
  const delivery = startFindingsDelivery(store, { start: false, now: () => t0, timeoutMs: options.timeoutMs, log: (line) => lines.push(line) });
  delivery.outbox.enqueue(projectId, finding(), ["d-1"]);
  const made: Scenario = { store, receiver, delivery, lines, state: () => delivery.outbox.deliveriesOf(findingId)[0]! };
  open.push(made);
  return made;
}

/** A state without the measured durations (checked apart). */
const withoutDurations = (state: DeliveryState) => ({ ...state, attempts: state.attempts.map(({ durationMs, ...rest }) => rest) });
const attempt = (n: number, at: number, status: number | null, error: string | null) => ({ destinationId: "d-1", attempt: n, at: iso(at), status, ok: status !== null && status < 300, error });

describe("retries", () => {
  test("500 twice, then 200: retried after 30 s and 2 min, then delivered, every attempt logged", async () => {
    const { delivery, receiver, state, lines } = scenario(() => [status(500, "receiver down"), status(500, "receiver down"), status(200, "ok")]);
    expect(withoutDurations(state())).toEqual({ destinationId: "d-1", state: "pending", attempts: [], nextAttemptAt: iso(t0) });
    expect(await delivery.runner.runDue(t0)).toBe(1);
    expect(withoutDurations(state())).toEqual({ destinationId: "d-1", state: "pending", attempts: [attempt(1, t0, 500, "HTTP 500: receiver down")], nextAttemptAt: iso(t0 + 30_000) });
    // Not due a millisecond early.
    expect(await delivery.runner.runDue(t0 + 29_999)).toBe(0);
    expect(await delivery.runner.runDue(t0 + 30_000)).toBe(1);
    expect(await delivery.runner.runDue(t0 + 30_000 + 119_999)).toBe(0);
    expect(await delivery.runner.runDue(t0 + 150_000)).toBe(1);
    expect(withoutDurations(state())).toEqual({
      destinationId: "d-1",
      state: "delivered",
      attempts: [attempt(1, t0, 500, "HTTP 500: receiver down"), attempt(2, t0 + 30_000, 500, "HTTP 500: receiver down"), attempt(3, t0 + 150_000, 200, null)],
      nextAttemptAt: null,
    });
    // The same bytes and webhook-id on every attempt (the signature is made anew each time).
    expect(new Set(receiver.requests.map((request) => request.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
    expect(await delivery.runner.runDue(t0 + 86_400_000)).toBe(0);
    expect(lines.length).toBe(2);
    expect(lines[0]).toMatch(/^findings: delivery msg_[0-9a-f]{32} of finding 0191f0a0-0000-7000-8000-00000000f001 to destination d-1, attempt 1: HTTP 500: receiver down \(retried at 2026-11-28T06:00:30.000Z\)$/);
  });

  test("410 fails at once; 408 and 429 are retried", async () => {
    const gone = scenario(() => [status(410, "channel_is_archived")]);
    expect(await gone.delivery.runner.runDue(t0)).toBe(1);
    expect(withoutDurations(gone.state())).toEqual({ destinationId: "d-1", state: "failed", attempts: [attempt(1, t0, 410, "HTTP 410: channel_is_archived")], nextAttemptAt: null });
    expect(await gone.delivery.runner.runDue(t0 + 86_400_000)).toBe(0);
    for (const code of [400, 401, 403, 404, 413, 422]) {
      const refused = scenario(() => [status(code)]);
      await refused.delivery.runner.runDue(t0);
      expect([refused.state().state, refused.state().attempts[0]!.error]).toEqual(["failed", `HTTP ${code}`]);
    }
    for (const code of [408, 429, 500, 502, 503, 302]) {
      const retried = scenario(() => [status(code)]);
      await retried.delivery.runner.runDue(t0);
      expect([retried.state().state, retried.state().nextAttemptAt]).toEqual(["pending", iso(t0 + 30_000)]);
    }
  });

  test("Retry-After on 429 and 503 is honoured when later than the backoff, and capped", async () => {
    const cases: [Answer, number][] = [
      [status(429, "slow down", { "Retry-After": "120" }), t0 + 120_000],
      [status(429, null, { "Retry-After": "5" }), t0 + 30_000],
      [status(503, null, { "Retry-After": new Date(t0 + 3_600_000).toUTCString() }), t0 + 3_600_000],
      [status(503, null, { "Retry-After": "99999999" }), t0 + retryAfterMaxMs],
      [status(503, null, { "Retry-After": "soon" }), t0 + 30_000],
      // Only 429 and 503 carry it.
      [status(500, null, { "Retry-After": "120" }), t0 + 30_000],
    ];
    for (const [answer, expected] of cases) {
      const { delivery, state } = scenario(() => [answer, status(204)]);
      await delivery.runner.runDue(t0);
      expect(state().nextAttemptAt).toBe(iso(expected));
      expect(await delivery.runner.runDue(expected - 1)).toBe(0);
      expect(await delivery.runner.runDue(expected)).toBe(1);
      expect(state().state).toBe("delivered");
    }
  });

  test("a receiver that never answers times out and is retried", async () => {
    const { delivery, state } = scenario((receiver) => [hang(receiver), status(200)], { timeoutMs: 150 });
    expect(await delivery.runner.runDue(t0)).toBe(1);
    const after = state();
    expect(withoutDurations(after)).toEqual({ destinationId: "d-1", state: "pending", attempts: [attempt(1, t0, null, "no answer within 150 ms")], nextAttemptAt: iso(t0 + 30_000) });
    expect(after.attempts[0]!.durationMs).toBeGreaterThanOrEqual(140);
    expect(after.attempts[0]!.durationMs).toBeLessThan(5_000);
    await delivery.runner.runDue(t0 + 30_000);
    expect(state().state).toBe("delivered");
  });

  test("after the last attempt the delivery has failed", async () => {
    const { delivery, state, receiver } = scenario(() => [status(500)]);
    let now = t0;
    for (let made = 1; made <= deliveryAttemptsMax; made += 1) {
      expect(await delivery.runner.runDue(now)).toBe(1);
      if (made < deliveryAttemptsMax) {
        now += deliveryRetryDelaysMs[made - 1]!;
        expect(state().nextAttemptAt).toBe(iso(now));
      }
    }
    expect(deliveryAttemptsMax).toBe(6);
    expect(withoutDurations(state())).toEqual({
      destinationId: "d-1",
      state: "failed",
      attempts: [0, 30_000, 150_000, 750_000, 4_350_000, 25_950_000].map((offset, index) => attempt(index + 1, t0 + offset, 500, "HTTP 500")),
      nextAttemptAt: null,
    });
    expect(await delivery.runner.runDue(now + 86_400_000)).toBe(0);
    expect(receiver.requests.length).toBe(6);
  });

  test("no more of a receiver's answer is read than the error keeps, even an endless one", async () => {
    const endless: Answer = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode("x".repeat(4096)));
          },
        }),
        { status: 500 },
      );
    const { delivery, state } = scenario(() => [endless, status(502, `${"\n<html>".repeat(2000)}`)], { timeoutMs: 20_000 });
    await delivery.runner.runDue(t0);
    const first = state().attempts[0]!;
    expect(first.error).toBe(`HTTP 500: ${"x".repeat(responseExcerptBytesMax)}`);
    expect(first.durationMs).toBeLessThan(5_000);
    await delivery.runner.runDue(t0 + 30_000);
    const second = state().attempts[1]!.error!;
    // 512 bytes are 73 "\n<html>" and a newline: whitespace folds to single spaces, the trailing one trimmed.
    expect(second).toBe(`HTTP 502: ${"<html> ".repeat(73).trim()}`);
  });

  test("a receiver's answer is kept on one line without control characters", async () => {
    const { delivery, state } = scenario(() => [status(500, "line one\r\n\u001b[31mred\u0000 \t end")]);
    await delivery.runner.runDue(t0);
    expect(state().attempts[0]!.error).toBe("HTTP 500: line one [31mred end");
  });

  test("an answer whose body stalls ends with the time-out, its status kept", async () => {
    // The first chunk carries the status line out; then the body never goes on.
    const stalled: Answer = () => {
      let pulls = 0;
      return new Response(
        new ReadableStream({
          pull(controller) {
            pulls += 1;
            if (pulls === 1) controller.enqueue(new TextEncoder().encode("partial"));
            else return new Promise<void>(() => {});
          },
        }),
        { status: 500 },
      );
    };
    const { delivery, state } = scenario(() => [stalled], { timeoutMs: 150 });
    await delivery.runner.runDue(t0);
    const first = state().attempts[0]!;
    expect([first.status, first.error, state().state]).toEqual([500, "HTTP 500", "pending"]);
    expect(first.durationMs).toBeLessThan(5_000);
  });

  test("a refused connection is retried and its error never shows the URL", async () => {
    const { delivery, state, receiver } = scenario(() => [status(200)]);
    receiver.close();
    await delivery.runner.runDue(t0);
    const after = state();
    expect([after.state, after.attempts[0]!.status, after.nextAttemptAt]).toEqual(["pending", null, iso(t0 + 30_000)]);
    expect(after.attempts[0]!.error).toStartWith("could not connect: ");
    expect(after.attempts[0]!.error).not.toContain(receiver.url);
    expect(after.attempts[0]!.error).not.toContain("secretpart");
  });

  test("a destination removed, disabled or left without a URL while its delivery waited fails it", async () => {
    const variants: [string, (store: RegionStore, url: string) => void][] = [
      ["the destination was removed", (store) => store.findingsConfig.upsert([project([])])],
      ["the destination was disabled", (store, url) => store.findingsConfig.upsert([project([destination({ id: "d-1", secret: url, enabled: false })])])],
      ["the destination has no URL", (store) => store.findingsConfig.upsert([project([destination({ id: "d-1", secret: null })])])],
      ["the project's findings configuration was removed", (store) => store.findingsConfig.delete(projectId)],
    ];
    for (const [error, change] of variants) {
      const { delivery, state, store, receiver } = scenario(() => [status(500), status(200)]);
      await delivery.runner.runDue(t0);
      change(store, receiver.url);
      await delivery.runner.runDue(t0 + 30_000);
      expect(withoutDurations(state())).toEqual({ destinationId: "d-1", state: "failed", attempts: [attempt(1, t0, 500, "HTTP 500"), attempt(2, t0 + 30_000, null, error)], nextAttemptAt: null });
      expect(receiver.requests.length).toBe(1);
    }
  });
});
