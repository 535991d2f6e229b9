// QUERY_WORKERS: read and bounded by the config, and the service's decode workers (threads named
// "query decode", as Linux lists them) run while it does and end when it stops.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "../server/config.ts";
import { defaultQueryWorkers, queryWorkersMax } from "../engine/parallel/settings.ts";
import { startTestService } from "./helpers/service.ts";

const decodeThreads = () =>
  readdirSync("/proc/self/task").filter((thread) => {
    try {
      return readFileSync(`/proc/self/task/${thread}/comm`, "utf8").trim() === "query decode";
    } catch {
      return false; // a thread that ended while listed
    }
  }).length;

test("QUERY_WORKERS defaults to the cores (at most queryWorkersMax) and refuses counts outside 1 to the maximum", () => {
  expect(loadConfig({}).queryWorkers).toBe(defaultQueryWorkers());
  expect(loadConfig({ QUERY_WORKERS: "1" }).queryWorkers).toBe(1);
  for (const bad of ["0", String(queryWorkersMax + 1), "two"]) expect(() => loadConfig({ QUERY_WORKERS: bad })).toThrow(ConfigError);
});

test("the service's decode workers run while it runs and end when it stops; QUERY_WORKERS=1 starts none", async () => {
  const before = decodeThreads();
  const service = await startTestService({ QUERY_WORKERS: "3" });
  try {
    expect(decodeThreads() - before).toBe(2);
  } finally {
    await service.close();
  }
  expect(decodeThreads()).toBe(before);
  const single = await startTestService({ QUERY_WORKERS: "1" });
  try {
    expect(decodeThreads()).toBe(before);
  } finally {
    await single.close();
  }
});
