// Cohort definitions (docs/cohorts.md, "Definitions"; the schema is the engine's
// CohortDefinitionSchema) and the editable form the criteria builder works on: every field as
// typed, so a half-written condition can be shown, and turned into a definition only when whole.

export const operators = ["eq", "neq", "in", "not_in", "contains", "not_contains", "regex", "not_regex", "gt", "gte", "lt", "lte", "is_set", "is_not_set"] as const;
export type Operator = (typeof operators)[number];
export type CountOperator = "gte" | "lte" | "eq";
export type Scalar = string | number | boolean;

export type CohortCriterion =
  | { type: "person"; key: string; operator: Operator; value?: Scalar | Scalar[] }
  | { type: "performed"; event: string; count_operator: CountOperator; count: number; days: number }
  | { type: "not_performed"; event: string; days: number }
  | { type: "first_performed"; event: string; days: number }
  | { type: "group"; group_type_index: number; group_key: string }
  | { type: "cohort"; cohort_id: string; operator: "in" | "not_in" };

export interface CohortDefinition {
  type: "and" | "or";
  values: (CohortDefinition | CohortCriterion)[];
}

export type CriterionType = CohortCriterion["type"];

/** The engine's limits (engine/cohorts/definition.ts). */
export const nestingDepthMax = 5;
export const criteriaMax = 100;
export const daysMin = 1;
export const daysMax = 3650;
export const countMax = 1_000_000;
const keyLengthMax = 400;

export const criterionLabels: Record<CriterionType, string> = {
  person: "Person property",
  performed: "Performed event",
  not_performed: "Did not perform event",
  first_performed: "First performed event",
  group: "Belongs to group",
  cohort: "In another cohort",
};

export const operatorLabels: Record<Operator, string> = {
  eq: "equals", neq: "does not equal", in: "is one of", not_in: "is not one of", contains: "contains", not_contains: "does not contain",
  regex: "matches regex", not_regex: "does not match regex", gt: "greater than", gte: "at least", lt: "less than", lte: "at most",
  is_set: "is set", is_not_set: "is not set",
};

export const countOperatorLabels: Record<CountOperator, string> = { gte: "at least", lte: "at most", eq: "exactly" };

const listOperators: ReadonlySet<Operator> = new Set(["in", "not_in"]);
const numberOperators: ReadonlySet<Operator> = new Set(["gt", "gte", "lt", "lte"]);
const presenceOperators: ReadonlySet<Operator> = new Set(["is_set", "is_not_set"]);

/** How a person condition's value is typed: none, one line, or a list (one value per line). */
export const valueShape = (operator: Operator): "none" | "one" | "list" =>
  presenceOperators.has(operator) ? "none" : listOperators.has(operator) ? "list" : "one";

/** A condition as the builder holds it: every field of every criterion type, as typed. */
export interface DraftCriterion {
  kind: "criterion";
  id: number;
  type: CriterionType;
  property: string;
  operator: Operator;
  value: string;
  event: string;
  countOperator: CountOperator;
  count: string;
  days: string;
  groupTypeIndex: string;
  groupKey: string;
  cohortId: string;
  membership: "in" | "not_in";
}

export interface DraftGroup {
  kind: "group";
  id: number;
  type: "and" | "or";
  values: DraftNode[];
}

export type DraftNode = DraftGroup | DraftCriterion;

let nextId = 0;
const newId = () => ++nextId;

export function newCriterion(type: CriterionType = "performed"): DraftCriterion {
  return {
    kind: "criterion", id: newId(), type, property: "", operator: "eq", value: "", event: "", countOperator: "gte", count: "1", days: "30",
    groupTypeIndex: "0", groupKey: "", cohortId: "", membership: "in",
  };
}

export const newGroup = (type: "and" | "or" = "and", values: DraftNode[] = [newCriterion()]): DraftGroup => ({ kind: "group", id: newId(), type, values });

const isGroup = (node: CohortDefinition | CohortCriterion): node is CohortDefinition => node.type === "and" || node.type === "or";

/** The builder's form of a stored definition. */
export function draftOf(definition: CohortDefinition): DraftGroup {
  return newGroup(definition.type, definition.values.map((node): DraftNode => {
    if (isGroup(node)) return draftOf(node);
    const draft = newCriterion(node.type);
    switch (node.type) {
      case "person":
        return { ...draft, property: node.key, operator: node.operator, value: node.value === undefined ? "" : Array.isArray(node.value) ? node.value.map(String).join("\n") : String(node.value) };
      case "performed":
        return { ...draft, event: node.event, countOperator: node.count_operator, count: String(node.count), days: String(node.days) };
      case "not_performed":
      case "first_performed":
        return { ...draft, event: node.event, days: String(node.days) };
      case "group":
        return { ...draft, groupTypeIndex: String(node.group_type_index), groupKey: node.group_key };
      case "cohort":
        return { ...draft, cohortId: node.cohort_id, membership: node.operator };
    }
  }));
}

/** What is wrong with a condition, in words, naming where it is ("Condition 2"). */
export class DraftProblem extends Error {}

const integerIn = (text: string, min: number, max: number, what: string, where: string): number => {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || value < min || value > max) throw new DraftProblem(`${where}: ${what} must be a whole number from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}.`);
  return value;
};

const required = (text: string, what: string, where: string): string => {
  if (text === "") throw new DraftProblem(`${where}: enter ${what}.`);
  if (text.length > keyLengthMax) throw new DraftProblem(`${where}: ${what} has at most ${keyLengthMax} characters.`);
  return text;
};

function personValue(draft: DraftCriterion, where: string): Scalar | Scalar[] | undefined {
  const shape = valueShape(draft.operator);
  if (shape === "none") return undefined;
  if (shape === "list") {
    const values = draft.value.split("\n").map((line) => line.trim()).filter((line) => line !== "");
    if (values.length === 0) throw new DraftProblem(`${where}: enter at least one value, one per line.`);
    return values;
  }
  if (numberOperators.has(draft.operator)) {
    const number = Number(draft.value.trim());
    if (draft.value.trim() === "" || !Number.isFinite(number)) throw new DraftProblem(`${where}: "${operatorLabels[draft.operator]}" compares numbers; enter a number.`);
    return number;
  }
  if (draft.value === "") throw new DraftProblem(`${where}: enter a value.`);
  return draft.value;
}

function criterionOf(draft: DraftCriterion, where: string): CohortCriterion {
  switch (draft.type) {
    case "person": {
      const value = personValue(draft, where);
      return { type: "person", key: required(draft.property, "a property", where), operator: draft.operator, ...(value === undefined ? {} : { value }) };
    }
    case "performed":
      return {
        type: "performed", event: required(draft.event, "an event", where), count_operator: draft.countOperator,
        count: integerIn(draft.count, 0, countMax, "the count", where), days: integerIn(draft.days, daysMin, daysMax, "the days", where),
      };
    case "not_performed":
    case "first_performed":
      return { type: draft.type, event: required(draft.event, "an event", where), days: integerIn(draft.days, daysMin, daysMax, "the days", where) };
    case "group":
      return { type: "group", group_type_index: integerIn(draft.groupTypeIndex, 0, 4, "the group type", where), group_key: required(draft.groupKey, "a group key", where) };
    case "cohort":
      if (draft.cohortId === "") throw new DraftProblem(`${where}: choose a cohort.`);
      return { type: "cohort", cohort_id: draft.cohortId, operator: draft.membership };
  }
}

/**
 * The definition a draft stands for; throws DraftProblem naming the first condition that is not
 * whole. Conditions are numbered in reading order, as the builder labels them.
 */
export function definitionOf(root: DraftGroup): CohortDefinition {
  let number = 0;
  const build = (group: DraftGroup, depth: number): CohortDefinition => {
    if (group.values.length === 0) throw new DraftProblem(depth === 1 ? "Add at least one condition." : "A group needs at least one condition; remove the empty group or add one.");
    return {
      type: group.type,
      values: group.values.map((node) => (node.kind === "group" ? build(node, depth + 1) : criterionOf(node, `Condition ${++number}`))),
    };
  };
  const definition = build(root, 1);
  if (number > criteriaMax) throw new DraftProblem(`A definition holds at most ${criteriaMax} conditions; this one has ${number}.`);
  return definition;
}

/** The draft with the node `id` replaced by what `change` makes of it (null removes it). */
export function updateNode(root: DraftGroup, id: number, change: (node: DraftNode) => DraftNode | null): DraftGroup {
  const visit = (group: DraftGroup): DraftGroup => ({
    ...group,
    values: group.values.flatMap((node) => {
      if (node.id === id) {
        const changed = change(node);
        return changed === null ? [] : [changed];
      }
      return node.kind === "group" ? [visit(node)] : [node];
    }),
  });
  return root.id === id ? (change(root) as DraftGroup) : visit(root);
}

/** The conditions a draft holds, in all its groups. */
export const criteriaCount = (group: DraftGroup): number => group.values.reduce((sum, node) => sum + (node.kind === "group" ? criteriaCount(node) : 1), 0);
