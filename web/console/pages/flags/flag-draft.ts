// The flag editor's working copy of one environment's configuration, as text fields a person
// types into, and the way back to the API's FlagEnvironmentUpdateRequest (docs/flags.md). The
// checks here are the ones a person should hear about before saving (a variant split that does
// not add up to 100, a payload that is not JSON, a value that is not a number); the API checks
// everything again, and its answers are placed where they belong by `locateApiError`.
import type { ConditionOperator, ConditionScalar, FlagCondition, FlagEnvironmentChange, FlagEnvironmentConfig, FlagKind, FlagRule, FlagVariant } from "../../api/flags-api.ts";

export type ConditionType = FlagCondition["type"];

export interface ConditionDraft {
  uid: number;
  type: ConditionType;
  key: string;
  operator: ConditionOperator;
  /** One value; for `in` / `not_in` one value per line. */
  valueText: string;
  groupType: string;
  cohortId: string;
  /** The stored value, kept as it was while its text is unchanged (a stored 5 stays a number). */
  original?: FlagCondition["value"];
}

export interface RuleDraft {
  uid: number;
  conditions: ConditionDraft[];
  rolloutText: string;
  /** The variant the group forces, "" for none. */
  variant: string;
  /** A stored null rollout (everyone) stays null while the text still reads 100. */
  rolloutWasNull: boolean;
}

export interface VariantDraft {
  uid: number;
  key: string;
  name: string;
  rolloutText: string;
  payloadText: string;
}

export interface EnvironmentDraft {
  enabled: boolean;
  rules: RuleDraft[];
  variants: VariantDraft[];
  /** A boolean flag's payload as JSON text, "" for none. */
  payloadText: string;
  stickiness: "distinct_id" | "group";
  stickinessGroup: string;
  salt: string;
}

export const operatorLabels: Record<ConditionOperator, string> = {
  eq: "equals",
  neq: "does not equal",
  contains: "contains",
  not_contains: "does not contain",
  regex: "matches regex",
  not_regex: "does not match regex",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  in: "is one of",
  not_in: "is not one of",
  is_set: "is set",
  is_not_set: "is not set",
};

export const operators = Object.keys(operatorLabels) as ConditionOperator[];
export const listOperators: ReadonlySet<ConditionOperator> = new Set(["in", "not_in"]);
export const valuelessOperators: ReadonlySet<ConditionOperator> = new Set(["is_set", "is_not_set"]);
const orderingOperators: ReadonlySet<ConditionOperator> = new Set(["gt", "gte", "lt", "lte"]);

let nextUid = 1;
const uid = () => nextUid++;

const scalarText = (value: ConditionScalar) => String(value);

/** A stored value as the editor shows it: a list one item per line. */
export function valueText(value: FlagCondition["value"]): string {
  if (value === undefined) return "";
  return Array.isArray(value) ? value.map(scalarText).join("\n") : scalarText(value);
}

/** JSON text of a payload for a text area; "" when there is none. */
export const payloadText = (payload: unknown) => (payload === null || payload === undefined ? "" : JSON.stringify(payload, null, 2));

export function conditionDraft(condition: FlagCondition): ConditionDraft {
  const operator = condition.operator ?? (condition.type === "cohort" ? "in" : "eq");
  return {
    uid: uid(),
    type: condition.type,
    key: condition.key ?? "",
    operator,
    valueText: valueText(condition.value),
    groupType: condition.group_type ?? "",
    cohortId: condition.cohort_id ?? "",
    original: condition.value,
  };
}

export const newCondition = (type: ConditionType = "person"): ConditionDraft => ({
  uid: uid(), type, key: "", operator: type === "cohort" ? "in" : "eq", valueText: "", groupType: "", cohortId: "",
});

export const newRule = (): RuleDraft => ({ uid: uid(), conditions: [], rolloutText: "100", variant: "", rolloutWasNull: false });

export const newVariant = (key = "", rollout = 0): VariantDraft => ({ uid: uid(), key, name: "", rolloutText: String(rollout), payloadText: "" });

export function environmentDraft(config: FlagEnvironmentConfig): EnvironmentDraft {
  const group = config.stickiness.startsWith("group:");
  return {
    enabled: config.enabled,
    rules: config.rules.map((rule) => ({
      uid: uid(),
      conditions: rule.properties.map(conditionDraft),
      rolloutText: String(rule.rollout_percentage ?? 100),
      variant: rule.variant ?? "",
      rolloutWasNull: rule.rollout_percentage === null,
    })),
    variants: config.variants.map((variant) => ({
      uid: uid(), key: variant.key, name: variant.name ?? "", rolloutText: String(variant.rollout_percentage), payloadText: payloadText(variant.payload),
    })),
    payloadText: payloadText(config.payload),
    stickiness: group ? "group" : "distinct_id",
    stickinessGroup: group ? config.stickiness.slice("group:".length) : "",
    salt: config.salt,
  };
}

/** Where a problem belongs in the editor. */
export type ProblemPlace =
  | { at: "general" }
  | { at: "rule"; rule: number; condition?: number }
  | { at: "variants"; variant?: number }
  | { at: "payload" }
  | { at: "bucketing" };

export interface Problem {
  place: ProblemPlace;
  message: string;
}

/** A percentage typed as text: a number from 0 to 100, or null when it is not one. */
export function percentage(text: string): number | null {
  if (text.trim() === "") return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 100 ? value : null;
}

/** JSON text parsed, or the parser's complaint. "" is no payload (null). */
export function parsePayload(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** Variant splits must add up to 100 within this (they may be decimals), as the API checks. */
const splitSumTolerance = 1e-9;

/** The sum of the variants' splits, or null while one of them is not a percentage. */
export function splitSum(variants: readonly VariantDraft[]): number | null {
  let sum = 0;
  for (const variant of variants) {
    const value = percentage(variant.rolloutText);
    if (value === null) return null;
    sum += value;
  }
  return sum;
}

function conditionValue(condition: ConditionDraft): FlagCondition["value"] {
  if (condition.original !== undefined && valueText(condition.original) === condition.valueText) {
    // Unchanged text keeps the stored value, unless the operator now wants the other shape.
    if (Array.isArray(condition.original) === listOperators.has(condition.operator)) return condition.original;
  }
  if (listOperators.has(condition.operator)) {
    return condition.valueText.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  }
  const text = condition.valueText;
  if (orderingOperators.has(condition.operator) && text.trim() !== "" && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function conditionOf(condition: ConditionDraft): FlagCondition {
  if (condition.type === "cohort") return { type: "cohort", cohort_id: condition.cohortId, operator: condition.operator };
  const built: FlagCondition = { type: condition.type, key: condition.key.trim(), operator: condition.operator };
  if (condition.type === "group") built.group_type = condition.groupType.trim();
  if (!valuelessOperators.has(condition.operator)) built.value = conditionValue(condition);
  return built;
}

function conditionProblem(condition: ConditionDraft): string | null {
  if (condition.type === "cohort") return condition.cohortId === "" ? "Choose a cohort." : null;
  if (condition.key.trim() === "") return "Name the property this condition reads.";
  if (condition.type === "group" && condition.groupType.trim() === "") return "Name the group type (for example company).";
  if (valuelessOperators.has(condition.operator)) return null;
  const value = conditionValue(condition);
  if (Array.isArray(value) ? value.length === 0 : value === "") return listOperators.has(condition.operator) ? "Give at least one value, one per line." : "Give a value to compare with.";
  if (condition.operator === "regex" || condition.operator === "not_regex") {
    try {
      new RegExp(String(value));
    } catch (error) {
      return `This is not a valid regular expression: ${(error as Error).message}`;
    }
  }
  return null;
}

/** Everything that stops `draft` from being saved as a configuration of a `kind` flag. */
export function draftProblems(kind: FlagKind, draft: EnvironmentDraft): Problem[] {
  const problems: Problem[] = [];
  draft.rules.forEach((rule, r) => {
    rule.conditions.forEach((condition, c) => {
      const message = conditionProblem(condition);
      if (message) problems.push({ place: { at: "rule", rule: r, condition: c }, message });
    });
    if (percentage(rule.rolloutText) === null) problems.push({ place: { at: "rule", rule: r }, message: "The rollout is a percentage from 0 to 100." });
    if (rule.variant !== "" && !draft.variants.some((variant) => variant.key === rule.variant)) {
      problems.push({ place: { at: "rule", rule: r }, message: `Variant ${rule.variant} is not one of the flag's variants.` });
    }
  });
  if (kind === "multivariate") {
    if (draft.variants.length < 2) problems.push({ place: { at: "variants" }, message: "A multivariate flag needs at least 2 variants." });
    const seen = new Set<string>();
    draft.variants.forEach((variant, v) => {
      const name = variant.key.trim() || `${v + 1}`;
      if (!/^[A-Za-z0-9_.-]+$/.test(variant.key)) problems.push({ place: { at: "variants", variant: v }, message: "A variant key uses letters, digits, _ . and - only." });
      else if (seen.has(variant.key)) problems.push({ place: { at: "variants", variant: v }, message: `Variant key ${variant.key} is used twice.` });
      seen.add(variant.key);
      if (percentage(variant.rolloutText) === null) problems.push({ place: { at: "variants", variant: v }, message: `The split of variant ${name} is a percentage from 0 to 100.` });
      const payload = parsePayload(variant.payloadText);
      if (!payload.ok) problems.push({ place: { at: "variants", variant: v }, message: `The payload of variant ${name} is not valid JSON: ${payload.message}` });
    });
    const sum = splitSum(draft.variants);
    if (sum !== null && draft.variants.length >= 2 && Math.abs(sum - 100) > splitSumTolerance) {
      problems.push({ place: { at: "variants" }, message: `Variant splits must add up to 100% (they add up to ${Number(sum.toFixed(6))}%).` });
    }
  } else {
    const payload = parsePayload(draft.payloadText);
    if (!payload.ok) problems.push({ place: { at: "payload" }, message: `The payload is not valid JSON: ${payload.message}` });
  }
  if (draft.stickiness === "group" && draft.stickinessGroup.trim() === "") problems.push({ place: { at: "bucketing" }, message: "Name the group type to bucket by." });
  return problems;
}

/** The configuration change a valid draft saves (check `draftProblems` first). */
export function draftChange(kind: FlagKind, draft: EnvironmentDraft): FlagEnvironmentChange {
  const rules: FlagRule[] = draft.rules.map((rule) => {
    const rollout = percentage(rule.rolloutText)!;
    return {
      properties: rule.conditions.map(conditionOf),
      rollout_percentage: rule.rolloutWasNull && rollout === 100 ? null : rollout,
      variant: rule.variant === "" ? null : rule.variant,
    };
  });
  const change: FlagEnvironmentChange = {
    enabled: draft.enabled,
    rules,
    stickiness: draft.stickiness === "group" ? `group:${draft.stickinessGroup.trim()}` : "distinct_id",
    salt: draft.salt,
  };
  if (kind === "multivariate") {
    change.variants = draft.variants.map((variant): FlagVariant => ({
      key: variant.key,
      name: variant.name.trim() === "" ? null : variant.name.trim(),
      rollout_percentage: percentage(variant.rolloutText)!,
      payload: (parsePayload(variant.payloadText) as { value: unknown }).value,
    }));
  } else {
    change.payload = (parsePayload(draft.payloadText) as { value: unknown }).value;
  }
  return change;
}

/**
 * Where an API refusal belongs. The control plane names rules and conditions as
 * `rules[0].properties[1]: …` (flag-config.ts) and schema problems as `body /rules/0/…`
 * (validate.ts); variant, payload and stickiness problems name those words.
 */
export function locateApiError(message: string): ProblemPlace {
  const rule = /^rules\[(\d+)\](?:\.properties\[(\d+)\])?/.exec(message) ?? /^body \/rules\/(\d+)(?:\/properties\/(\d+))?/.exec(message);
  if (rule) return rule[2] === undefined ? { at: "rule", rule: Number(rule[1]) } : { at: "rule", rule: Number(rule[1]), condition: Number(rule[2]) };
  const variant = /^body \/variants\/(\d+)/.exec(message);
  if (variant) return { at: "variants", variant: Number(variant[1]) };
  if (/^body \/variants|variant/i.test(message)) return { at: "variants" };
  if (/^(body \/)?(stickiness|salt)/.test(message)) return { at: "bucketing" };
  if (/^body \/payload|payload/i.test(message)) return { at: "payload" };
  return { at: "general" };
}

/**
 * `place` if the editor of a `kind` flag with `draft` shows it, else the nearest place it does
 * show (the whole form at worst), so no message is ever lost.
 */
export function shownPlace(kind: FlagKind, draft: EnvironmentDraft, place: ProblemPlace): ProblemPlace {
  if (place.at === "rule") {
    if (place.rule >= draft.rules.length) return { at: "general" };
    if (place.condition !== undefined && place.condition >= draft.rules[place.rule]!.conditions.length) return { at: "rule", rule: place.rule };
  }
  if (place.at === "variants") {
    if (kind !== "multivariate") return { at: "general" };
    if (place.variant !== undefined && place.variant >= draft.variants.length) return { at: "variants" };
  }
  if (place.at === "payload" && kind !== "boolean") return { at: "general" };
  return place;
}

const samePlace = (a: ProblemPlace, b: ProblemPlace) => JSON.stringify(a) === JSON.stringify(b);

/** The messages of `problems` placed exactly at `place`. */
export const problemsAt = (problems: readonly Problem[], place: ProblemPlace) => problems.filter((problem) => samePlace(problem.place, place)).map((problem) => problem.message);
