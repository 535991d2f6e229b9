// A flag's configuration in one environment in a few words, for the list.
import type { FlagEnvironmentConfig, FlagRule } from "../../api/flags-api.ts";

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

function ruleSummary(rule: FlagRule): string {
  const share = rule.rollout_percentage ?? 100;
  const conditions = rule.properties.length;
  if (conditions === 0) return share === 100 ? "everyone" : `${share}% of everyone`;
  return `${share}% where ${plural(conditions, "condition")} hold${conditions === 1 ? "s" : ""}`;
}

/** Who gets the flag: "everyone", "50% of everyone", "3 condition groups", "no one". */
export function rolloutSummary(config: FlagEnvironmentConfig): string {
  if (config.rules.length === 0) return "no one";
  if (config.rules.length === 1) return ruleSummary(config.rules[0]!);
  return plural(config.rules.length, "condition group");
}

/** The variants' split: "control 50 / test 50". */
export const splitSummary = (config: FlagEnvironmentConfig) => config.variants.map((variant) => `${variant.key} ${variant.rollout_percentage}`).join(" / ");
