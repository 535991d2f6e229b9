// The internal erasure route answers once the erasure is done, however long past the region
// surface's request time-out (which answers other region requests 503) that is.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { call } from "../../helpers/client.ts";
import { regionRequestTimeoutMs } from "../../../server/service.ts";
import type { EventSubjects } from "../../../storage/event-erasure.ts";

const regionSecret = "erasure-timeout-secret";
/** The smallest query time-out: the region's request time-out is then about 5 s. */
const queryTimeoutMs = 100;
const outlastMarginMs = 500;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ REGION_SECRET: regionSecret, QUERY_TIMEOUT_MS: String(queryTimeoutMs) });
});
afterAll(() => service.close());

test("an erasure that outlasts the region's request time-out is answered 200 with its report", async () => {
  const events = service.nodes.get("eu")!.events;
  const erase = events.erase.bind(events);
  const timeoutMs = regionRequestTimeoutMs(queryTimeoutMs);
  let started = 0;
  // The events stage goes on until the region's request time-out has passed.
  events.erase = async (subjects: EventSubjects, intentFile: string | null = null) => {
    started = Date.now();
    const counts = await erase(subjects, intentFile);
    await new Promise((resolve) => setTimeout(resolve, timeoutMs + outlastMarginMs));
    return counts;
  };
  const request = {
    erasure_id: "0193a7c2-8888-7000-8000-000000000001", project_id: "0193a7c2-8888-7000-8000-0000000000aa", data_id: 999,
    environment: "production", person_ids: [], distinct_ids: ["user-slow"],
  };
  const reply = await call(service.url, "POST", "/region/eu/internal/erasures", { headers: { "X-Region-Secret": regionSecret }, body: request });
  expect(Date.now() - started).toBeGreaterThan(timeoutMs);
  expect([reply.status, reply.body.erasure_id, reply.body.persons_erased]).toEqual([200, request.erasure_id, 0]);
  events.erase = erase;
});
