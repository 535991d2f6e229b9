// FINDINGS_DAILY_CAP: 10 by default, 0 to findingsDailyCapMax, anything else stops start-up.
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../server/config.ts";
import { findingsDailyCapMax } from "../../../server/findings/evaluation/findings-runner.ts";

test("FINDINGS_DAILY_CAP at its edges", () => {
  expect(loadConfig({}).findingsDailyCap).toBe(10);
  expect(loadConfig({ FINDINGS_DAILY_CAP: "" }).findingsDailyCap).toBe(10);
  expect(loadConfig({ FINDINGS_DAILY_CAP: "0" }).findingsDailyCap).toBe(0);
  expect(loadConfig({ FINDINGS_DAILY_CAP: String(findingsDailyCapMax) }).findingsDailyCap).toBe(findingsDailyCapMax);
  expect(() => loadConfig({ FINDINGS_DAILY_CAP: String(findingsDailyCapMax + 1) })).toThrow(new ConfigError(`FINDINGS_DAILY_CAP must be an integer from 0 to ${findingsDailyCapMax}, got "${findingsDailyCapMax + 1}"`));
  for (const bad of ["-1", "2.5", "ten"]) expect(() => loadConfig({ FINDINGS_DAILY_CAP: bad })).toThrow(ConfigError);
});
