// Shutting down waits for the answers in flight and no more: settled() resolves when the last
// tracked answer settles (fulfilled or rejected), at once when none is.
import { expect, test } from "bun:test";
import { InFlightRequests } from "../../server/http/in-flight.ts";

test("settled waits for every tracked answer, failed ones included, and no longer", async () => {
  const inFlight = new InFlightRequests();
  const order: string[] = [];
  await inFlight.settled();
  order.push("none in flight");
  let finishFirst!: (value: string) => void;
  let failSecond!: (error: Error) => void;
  const first = inFlight.track(new Promise<string>((resolve) => (finishFirst = resolve)));
  const second = inFlight.track(new Promise<string>((_, reject) => (failSecond = reject)));
  const settled = inFlight.settled().then(() => order.push("settled"));
  finishFirst("answer");
  expect(await first).toBe("answer");
  order.push("first answered");
  failSecond(new Error("handler failed"));
  expect(await second.catch((error: Error) => error.message)).toBe("handler failed");
  await settled;
  expect(order).toEqual(["none in flight", "first answered", "settled"]);
});
